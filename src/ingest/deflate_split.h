/* One deflate stream decoded in pieces on threads, with ISA-L's inflate.
 *
 * A gzip member is one deflate stream: one inflate, one thread. To decode
 * it in pieces, each piece must start where a block starts, and its
 * back-references may reach 32 KiB into the output of the piece before,
 * not yet known. The pieces are found and decoded like this:
 *
 * - gt_deflate_find_block finds a bit offset where a dynamic Huffman
 *   block's header is valid (complete codes, an end-of-block code) and
 *   ISA-L decodes what follows without error: a block start, almost surely.
 * - gt_deflate_decode_span decodes a piece with a stand-in window. Decoded
 *   twice, with the two windows of gt_deflate_window_pair, a byte equal in
 *   both runs is the piece's own; a byte that differs came from the unknown
 *   window, and the pair of values names the window's position
 *   (gt_deflate_resolve fills it in once the window is known).
 * - A piece is right only if the one before stopped exactly at its start
 *   bit (decode_span reports where it stopped). The first piece starts at a
 *   true block, so each checked piece proves the next start a true one: the
 *   bytes are then the one-thread inflate's, byte for byte.
 */
#ifndef GT_DEFLATE_SPLIT_H
#define GT_DEFLATE_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GT_DEFLATE_WINDOW 32768u
/* A window given to gt_deflate_resolve is readable this far past its end
 * (the fill reads four bytes where it takes one). */
#define GT_DEFLATE_WINDOW_PAD 4u

/* The first bit offset in [from_bit, to_bit) where a dynamic block starts,
 * as far as its header and a trial decode of what follows can tell; -1 if
 * none. data[0, size) is the compressed stream. */
int64_t gt_deflate_find_block(const uint8_t *data, size_t size, uint64_t from_bit, uint64_t to_bit);

/* A decoded piece: out[0, len) (malloc'd, cap bytes), and where it stopped.
 * Zeroed before its first use; a buffer it holds is reused. */
typedef struct {
	uint8_t *out;
	size_t len, cap;
	uint64_t stop_bit; /* the bit after the last whole block decoded */
	bool final;        /* the stream's last block was decoded */
	int isal_rc;       /* ISA-L's error (< 0), 0 if none */
	bool no_memory;
} gt_deflate_piece;

/* Decodes the blocks from start_bit on, fed the bytes up to end_bit's byte
 * (end_bit 0: to the end of data), with window (GT_DEFLATE_WINDOW bytes,
 * or NULL at the stream's start). Stops at the input's end or after the
 * final block. max_out > 0 stops it, as a failure, once it has decoded
 * more. Returns 0, or -1 with isal_rc or no_memory set. */
int gt_deflate_decode_span(const uint8_t *data, size_t size, uint64_t start_bit, uint64_t end_bit,
			   const uint8_t *window, size_t max_out, gt_deflate_piece *p);
void gt_deflate_piece_free(gt_deflate_piece *p);

/* The two stand-in windows: a[i] != b[i] at every i, and (a[i], b[i])
 * names i. */
void gt_deflate_window_pair(uint8_t a[GT_DEFLATE_WINDOW], uint8_t b[GT_DEFLATE_WINDOW]);

/* Turns a piece decoded with window a (in out) and with window b (in
 * other, the same length) into its true bytes, window being the true one
 * (GT_DEFLATE_WINDOW bytes, and GT_DEFLATE_WINDOW_PAD more readable): in
 * place in out. */
void gt_deflate_resolve(uint8_t *out, const uint8_t *other, size_t n, const uint8_t window[GT_DEFLATE_WINDOW]);

/* How far back into its window a piece reaches (decoded with windows a
 * and b as above): the most bytes before its start, 0 if it takes none. */
size_t gt_deflate_reach(const uint8_t *out, const uint8_t *other, size_t n);

#endif
