/* A sparse copy: only the data of a file, its holes left holes (a volume from its template). */
#define _GNU_SOURCE
#include "loop_device.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

int ext_copy_sparse(int from_fd, int to_fd)
{
    struct stat info;
    if (fstat(from_fd, &info) != 0)
        return -1;
    if (ftruncate(to_fd, info.st_size) != 0)
        return -1;
    off_t offset = 0;
    while (offset < info.st_size) {
        off_t data = lseek(from_fd, offset, SEEK_DATA);
        if (data < 0)
            return errno == ENXIO ? 0 : -1; /* only a hole left */
        off_t hole = lseek(from_fd, data, SEEK_HOLE);
        if (hole < 0)
            return -1;
        off_t in = data, out = data;
        while (in < hole) {
            ssize_t copied = copy_file_range(from_fd, &in, to_fd, &out, (size_t)(hole - in), 0);
            if (copied < 0 && errno == EINTR)
                continue;
            if (copied <= 0)
                return copied == 0 ? (errno = EIO, -1) : -1;
        }
        offset = hole;
    }
    return 0;
}
