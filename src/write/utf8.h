/* UTF-8 validation for the writers: text and Arrow output must be valid
 * UTF-8, so each maximal invalid subpart of the input (as in Unicode's
 * "substitution of maximal subparts", which Python's errors='replace' also
 * follows) becomes one U+FFFD. */
#ifndef GT_UTF8_H
#define GT_UTF8_H

#include <stddef.h>

/* Length of the valid sequence starting at s (1..4), or minus the number of
 * bytes (1..3) forming an invalid subpart to replace. s[0] must not be 0. */
int gt_utf8_next(const unsigned char *s);

/* Length of s after replacement (without the NUL). */
size_t gt_utf8_clean_len(const char *s);
/* Writes s with replacements into dst (gt_utf8_clean_len bytes, no NUL). */
void gt_utf8_clean_copy(char *dst, const char *s);

#endif
