#ifndef EXTENSIOND_LOOP_DEVICE_H
#define EXTENSIOND_LOOP_DEVICE_H

/* Attaches the open file `image_fd` to a free loop device, read-write, with
   LO_FLAGS_AUTOCLEAR: the device detaches itself once it is unmounted and its last
   descriptor is closed. Returns the device's descriptor (keep it open until the file
   system is mounted) and stores its number in `*number`; -1 with errno set on failure. */
int ext_loop_attach(int image_fd, int *number);

/* Copies the data of `from_fd` into `to_fd` (empty, the same size after), leaving its
   holes holes; 0, or -1 with errno set. */
int ext_copy_sparse(int from_fd, int to_fd);

#endif
