/* Unmaps the resident pages of the read-only segments of the daemon and of its shared
 * libraries once it serves and after each burst of launches: start-up (argument parsing,
 * the config's parser) and launches touch code that does not run while the daemon
 * answers, and the kernel maps up to a page-cache folio around every fault, so most of
 * the text would stay resident (bench/README.md). The pages stay in the page cache; code
 * that runs again faults back in. Writable segments are left alone: their copied pages
 * would be lost, and partial pages at either end, which a writable neighbour may share. */
#define _GNU_SOURCE
#include "CLinux.h"

#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int release_segments(struct dl_phdr_info *info, size_t size, void *result)
{
    (void)size;
    /* The kernel's vDSO is no file: nothing to fault it back in from. */
    if (info->dlpi_name != NULL && strstr(info->dlpi_name, "vdso") != NULL)
        return 0;
    long page = sysconf(_SC_PAGESIZE);
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD || (header->p_flags & PF_W))
            continue;
        uintptr_t start = (info->dlpi_addr + header->p_vaddr + page - 1) & ~(uintptr_t)(page - 1);
        uintptr_t end = (info->dlpi_addr + header->p_vaddr + header->p_memsz) & ~(uintptr_t)(page - 1);
        if (end > start && madvise((void *)start, end - start, MADV_DONTNEED) != 0 && *(int *)result == 0)
            *(int *)result = errno;
    }
    return 0;
}

int ext_release_read_only_pages(void)
{
    int result = 0;
    dl_iterate_phdr(release_segments, &result);
    return result;
}
