#ifndef EXTENSIOND_CLINUX_H
#define EXTENSIOND_CLINUX_H
/* What Swift must not do itself: the code between fork and exec, raw syscalls. */
#endif
