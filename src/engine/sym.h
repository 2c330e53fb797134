/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Values of a program as the engine follows them (symval.c): constants,
 * or functions of one word of seccomp_data that a jump can turn into sets
 * of that word's values.  Private to the engine.
 */
#ifndef SCMPC_ENGINE_SYM_H
#define SCMPC_ENGINE_SYM_H

#include "engine/engine.h"

enum { S_CONST, S_BITS, S_OFFSET, S_OPAQUE };

/*
 * A value of the program: a constant, or a function of word W of
 * seccomp_data that jumps can be turned into sets of W's values:
 *   S_BITS    ((w >> sh) & keep) ^ val (sh < 0: shifted left), every output
 *             bit a bit of w, possibly flipped, or a constant: what and,
 *             or, xor, shifts and multiplications or divisions by powers of
 *             two make of a word;
 *   S_OFFSET  w + c (mod 2^32): add and sub on a word as loaded;
 *   S_OPAQUE  anything else (two words combined, arithmetic on a word with
 *             too many values): refused where a jump or RET reads it.
 */
struct sym {
	uint8_t kind;
	uint8_t word;
	int8_t sh;
	uint32_t c;		/* S_CONST: the value; S_OFFSET: the addend */
	uint32_t keep, val;	/* S_BITS */
	int32_t insn;		/* S_OPAQUE: where the value stopped being followable */
	uint16_t prog;
};

enum { ALU_OK, ALU_PIN };

/* Pieces of each side of a jump, at most 33 cubes (a comparison bit by
 * bit) or two ranges each. */
struct split {
	struct piece t[34], f[34];
	size_t nt, nf;
};

struct sym sym_const(uint32_t c);

struct sym sym_word(uint8_t w);

/* The value of S where its word can take one value only. */
void sym_resolve(struct sym *s, const struct wcon *w);

/* Apply A = A OP K to S.  ALU_PIN: the result is no function the jumps
 * can read as sets of the word; the caller follows the word's values one
 * by one, or makes it opaque. */
int sym_alu(struct sym *s, uint16_t op, uint32_t k);

/* Cut S's word by whether S OP K holds.  False when S has to be made
 * concrete first (jset on an offset value). */
bool sym_split(const struct sym *s, uint16_t op, uint32_t k, struct split *o);

#endif
