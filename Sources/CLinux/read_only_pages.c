/* Unmaps the resident pages of the daemon's own read-only segments once it serves:
 * start-up (argument parsing, the config's parser) touches code that never runs again,
 * and the kernel maps up to 64 KiB around every fault, so most of the text stays
 * resident otherwise (bench/README.md). The pages stay in the page cache; code that runs
 * again faults back in. Writable segments are left alone: their copied pages would be
 * lost, and partial pages at either end, which a writable neighbour may share. */
#define _GNU_SOURCE
#include "CLinux.h"

#include <errno.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

static int release_segments(struct dl_phdr_info *info, size_t size, void *result)
{
    (void)size;
    long page = sysconf(_SC_PAGESIZE);
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD || (header->p_flags & PF_W))
            continue;
        uintptr_t start = (info->dlpi_addr + header->p_vaddr + page - 1) & ~(uintptr_t)(page - 1);
        uintptr_t end = (info->dlpi_addr + header->p_vaddr + header->p_memsz) & ~(uintptr_t)(page - 1);
        if (end > start && madvise((void *)start, end - start, MADV_DONTNEED) != 0)
            *(int *)result = errno;
    }
    return 1; /* the first object is the program itself */
}

int ext_release_program_text(void)
{
    int result = 0;
    dl_iterate_phdr(release_segments, &result);
    return result;
}
