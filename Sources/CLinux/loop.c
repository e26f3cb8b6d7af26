#include "loop_device.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int ext_loop_attach(int image_fd, int *number) {
    int control = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
    if (control < 0) return -1;
    int result = -1;
    /* Another process may take the free device between the two calls: ask again. */
    for (int attempt = 0; attempt < 16; attempt++) {
        int free_number = ioctl(control, LOOP_CTL_GET_FREE);
        if (free_number < 0) break;
        char path[32];
        snprintf(path, sizeof path, "/dev/loop%d", free_number);
        int device = open(path, O_RDWR | O_CLOEXEC);
        if (device < 0) break;
        struct loop_config config;
        memset(&config, 0, sizeof config);
        config.fd = (unsigned) image_fd;
        config.info.lo_flags = LO_FLAGS_AUTOCLEAR;
        if (ioctl(device, LOOP_CONFIGURE, &config) == 0) {
            *number = free_number;
            result = device;
            break;
        }
        int error = errno;
        close(device);
        errno = error;
        if (error != EBUSY) break;
    }
    int error = errno;
    close(control);
    errno = error;
    return result;
}
