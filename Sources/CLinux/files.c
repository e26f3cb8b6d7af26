/* Whole-file reads and single-write control-file writes for procfs and cgroupfs; file identities. */
#define _GNU_SOURCE
#include "CLinux.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

char *ext_read_file(const char *path, size_t *length)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t capacity = 4096, used = 0;
    char *buffer = malloc(capacity);
    while (buffer != NULL) {
        if (capacity - used < 2) {
            char *grown = realloc(buffer, capacity * 2);
            if (grown == NULL)
                break;
            buffer = grown;
            capacity *= 2;
        }
        ssize_t count = read(fd, buffer + used, capacity - used - 1);
        if (count > 0) {
            used += (size_t)count;
        } else if (count == 0) {
            buffer[used] = '\0';
            close(fd);
            *length = used;
            return buffer;
        } else if (errno != EINTR) {
            break;
        }
    }
    int error = buffer == NULL ? ENOMEM : errno;
    free(buffer);
    close(fd);
    errno = error;
    return NULL;
}

int ext_write_file(const char *path, const char *data, size_t length)
{
    return ext_write_file_at(AT_FDCWD, path, data, length);
}

int ext_open_control_file_at(int directory, const char *path)
{
    int fd = openat(directory, path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    /* Not O_TRUNC: on cgroupfs and procfs a truncation is a setattr of the file, which kernfs
       takes a lock and allocates for. Their files report size 0, so only a regular file with
       content (a test's fake tree) is truncated. */
    struct stat info;
    if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0 && ftruncate(fd, 0) != 0) {
        int error = errno;
        close(fd);
        errno = error;
        return -1;
    }
    return fd;
}

int ext_write_open_file(int fd, const char *data, size_t length)
{
    ssize_t written;
    do {
        written = write(fd, data, length);
    } while (written < 0 && errno == EINTR);
    if (written < 0)
        return -1;
    if ((size_t)written != length) {
        errno = EIO;
        return -1;
    }
    return 0;
}

int ext_write_file_at(int directory, const char *path, const char *data, size_t length)
{
    int fd = ext_open_control_file_at(directory, path);
    if (fd < 0)
        return -1;
    int status = ext_write_open_file(fd, data, length);
    int error = errno;
    close(fd);
    errno = error;
    return status;
}

int ext_open_directory_path(const char *path)
{
    return open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

int ext_file_identity(const char *path, struct ext_file_identity *identity)
{
    struct statx info;
    if (statx(AT_FDCWD, path, 0, STATX_INO | STATX_MTIME | STATX_BTIME, &info) != 0)
        return -1;
    identity->device = makedev(info.stx_dev_major, info.stx_dev_minor);
    identity->inode = info.stx_ino;
    int born = (info.stx_mask & STATX_BTIME) != 0;
    identity->born_seconds = born ? info.stx_btime.tv_sec : 0;
    identity->born_nanoseconds = born ? info.stx_btime.tv_nsec : 0;
    identity->modified_seconds = info.stx_mtime.tv_sec;
    identity->modified_nanoseconds = info.stx_mtime.tv_nsec;
    return 0;
}
