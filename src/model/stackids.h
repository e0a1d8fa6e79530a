/*
 * Stack ids: how a map key that holds stacks is stored where the kernel's
 * hash maps refuse keys over 512 bytes (MAX_BPF_STACK; Linux 5.11 lifted
 * it, commit c6bde958a62b). A kstack of 127 frames alone is 1024 bytes.
 *
 * Each stack of such a key is stored as the u64 id of its bytes in a stack
 * table (a hash map: id -> the stack, as the key would hold it, one table
 * per stack type), the rest of the key as it is. Codegen turns the key it
 * built into this form before the map is touched (codegen/stackids.h); the
 * runtime puts the stacks back before anything reads the keys
 * (runtime/stackids.h), so printing, sorting, flame graphs and pprof see
 * the keys a newer kernel would give them.
 *
 * The stored layout is the key's with each stack shrunk to its 8-byte id:
 * stacks are 8-aligned and a multiple of 8 bytes long, so the bytes between
 * them keep their alignment and move down as a block (a hist's bucket too).
 *
 * An id is odd: its table holds the stack under it. An even id stands for
 * a stack that its table could not take (it was full): the key still tells
 * that stack from others, but its frames are lost; the runtime prints no
 * entry that holds one and reports how many stacks were lost.
 */
#ifndef SONDE_MODEL_STACKIDS_H
#define SONDE_MODEL_STACKIDS_H

#include <stdbool.h>
#include <stdint.h>

struct type;

/* The largest hash key such kernels take, and the first Linux that
 * takes bigger ones (git describe --contains c6bde958a62b: v5.11-rc1). */
#define STACKIDS_KEY_MAX 512u
#define STACKIDS_SINCE "5.11"

/* A stack of a key: where it is in the whole key, where its id is in the
 * stored one. */
struct stackids_part {
	uint32_t off;
	uint32_t id_off;
	const struct type *stack;
};

/* The stacks of key type key (a stack, or a tuple holding some, at any
 * depth) in order of offset: how many; the first max are written to
 * parts. */
uint32_t stackids_parts(const struct type *key, struct stackids_part *parts,
			uint32_t max);
/* Whether keys of type key (in a map of values of type value) need stack
 * ids on a kernel without big keys: they hold a stack and are too big. */
bool stackids_needed(const struct type *key, const struct type *value);
/* The stored key's size: maplayout_key_size()'s, each stack 8 bytes. */
uint32_t stackids_key_size(const struct type *key, const struct type *value);

/* Where the byte at offset off of a key of type key (outside its stacks)
 * is in the stored key. */
uint32_t stackids_stored_off(const struct type *key, uint32_t off);

/* Gives the stack of part i (p, as stackids_parts() numbers them) stored
 * as id: copies its p->stack->size bytes to dst and returns true, or
 * false when it is lost. */
typedef bool (*stackids_fetch_fn)(void *ctx, uint32_t i,
				  const struct stackids_part *p, uint64_t id,
				  uint8_t *dst);
/* The whole key (maplayout_key_size() bytes at whole) of the stored key
 * at stored; false when a stack of it is lost (whole is then partly
 * written). */
bool stackids_expand(const struct type *key, const struct type *value,
		     const uint8_t *stored, uint8_t *whole,
		     stackids_fetch_fn fetch, void *ctx);

#endif
