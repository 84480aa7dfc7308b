/* gt_drop_pages on a file's read-only mapping: the pages wholly inside the
 * range leave the process's resident set (its smaps entry says so; the
 * two at its edges may stay, or go with them where the file is mapped in
 * huge pages), a range inside one page gives nothing back, and every byte
 * still reads as the file holds. gt_free_large gives back no page past
 * its block, however long a length it is told. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/jobs.h"
#include "base/unmap.h"
#include "testutil.h"

/* The mapping at p's resident kB, from /proc/self/smaps; -1 if not found. */
static long resident_kb(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	char line[512];
	long kb = -1;
	bool in = false;
	uintptr_t a = (uintptr_t)p;
	while (fgets(line, sizeof line, f)) {
		uintptr_t lo, hi;
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2) {
			in = a >= lo && a < hi;
			continue;
		}
		if (in && sscanf(line, "Rss: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

/* A file of `pages` pages holding a known pattern, mapped read-only and
 * read through (so every page is resident). */
static unsigned char *mapped_file(size_t bytes, int *fd_out)
{
	char path[] = "/tmp/gt_test_unmap_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	unsigned char *buf = malloc(bytes);
	ck_assert_ptr_nonnull(buf);
	for (size_t i = 0; i < bytes; i++)
		buf[i] = (unsigned char)(i * 131 + (i >> 12));
	ck_assert_int_eq(write(fd, buf, bytes), (ssize_t)bytes);
	free(buf);
	unsigned char *p = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert(p != MAP_FAILED);
	volatile unsigned sum = 0;
	for (size_t i = 0; i < bytes; i += 1024)
		sum += p[i];
	(void)sum;
	*fd_out = fd;
	return p;
}

static void check_drop(unsigned threads, size_t pages)
{
	gt_thread_default_set(threads);
	size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = pages * page;
	int fd;
	unsigned char *p = mapped_file(bytes, &fd);
	long before = resident_kb(p);
	ck_assert_int_ge(before, (long)(bytes / 1024));
	/* from inside the first page to inside the last */
	gt_drop_pages(p + 100, bytes - 200);
	long after = resident_kb(p);
	ck_assert_msg(after >= 0 && after <= (long)(2 * page / 1024),
		      "%zu pages on %u threads: %ld kB resident after, %ld before", pages, threads, after, before);
	size_t wrong = 0;
	for (size_t i = 0; i < bytes; i++)
		wrong += p[i] != (unsigned char)(i * 131 + (i >> 12));
	ck_assert_uint_eq(wrong, 0);
	/* a range inside one page gives nothing back */
	gt_drop_pages(p + page + 1, page - 2);
	ck_assert_int_eq(resident_kb(p), (long)(bytes / 1024));
	gt_drop_pages(NULL, bytes);
	munmap(p, bytes);
	close(fd);
	gt_thread_default_set(0);
}

START_TEST(drops_inner_pages_one_thread)
{
	check_drop(1, 64);
}
END_TEST

START_TEST(drops_inner_pages_on_threads)
{
	/* large enough to go on threads (unmap.c: two pieces of 64 MiB) */
	check_drop(3, (size_t)(160 << 20) / (size_t)sysconf(_SC_PAGESIZE));
}
END_TEST

/* Two large blocks, the second mapped below the first as a fresh mapping
 * usually is: the second freed with a length that reaches far into the
 * first, on threads, leaves the first's bytes as they were. */
START_TEST(free_large_stays_in_its_block)
{
	gt_thread_default_set(3);
	size_t bytes = (size_t)160 << 20;
	unsigned char *kept = malloc(bytes), *freed = malloc(bytes);
	ck_assert(kept && freed);
	memset(kept, 0xab, bytes);
	memset(freed, 0xcd, bytes);
	gt_free_large(freed, 4 * bytes);
	size_t wrong = 0;
	for (size_t i = 0; i < bytes; i++)
		wrong += kept[i] != 0xab;
	ck_assert_uint_eq(wrong, 0);
	free(kept);
	gt_free_large(NULL, bytes);
	gt_thread_default_set(0);
}
END_TEST

int main(void)
{
	const gt_test drop[] = {GT_TEST(drops_inner_pages_one_thread), GT_TEST(drops_inner_pages_on_threads),
				GT_TEST(free_large_stays_in_its_block), {0}};
	const gt_tcase cases[] = {{"drop", 0, drop}, {0}};
	return gt_run_cases("unmap", cases);
}
