/* Error reporting for the library core: a caller-owned struct, filled once.
 * The core never prints or exits; the CLI turns an error into one stderr line
 * and an exit status. */
#ifndef GT_ERROR_H
#define GT_ERROR_H

#include <stdarg.h>

/* Error classes map one to one onto the CLI's documented exit statuses. */
enum gt_status {
	GT_OK = 0,
	GT_EINPUT = 1,      /* bad or unreadable input, failed analysis */
	GT_EUSAGE = 2,      /* bad arguments */
	GT_EDEVICE = 3,     /* OpenCL device error */
	GT_EINCOMPLETE = 4, /* flagged result under --strict */
	GT_EREGRESSION = 5, /* compare: a --fail-if condition held */
};

/* What a caller can act on, beyond the message. */
enum gt_cause {
	GT_CAUSE_NONE = 0,
	GT_CAUSE_DEVICE_MEMORY, /* the OpenCL device ran out of memory or resources */
};

typedef struct gt_error {
	int status;       /* enum gt_status; 0 while no error was set */
	int cause;        /* enum gt_cause */
	char msg[1024];   /* one line, no trailing newline or period */
} gt_error;

/* Sets err (if non-NULL and not already set) and returns -1, so callers
 * can write `return gt_fail(err, GT_EINPUT, "...")`. The first error wins:
 * it is the cause, later ones are consequences. */
int gt_fail(gt_error *err, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int gt_vfail(gt_error *err, int status, const char *fmt, va_list ap);

#endif
