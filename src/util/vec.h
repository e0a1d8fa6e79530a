/*
 * Growable arrays: VEC(T) declares { T *data; size_t len, cap; }.
 * Growth doubles and checks for overflow (xreallocarray aborts).
 */
#ifndef SONDE_VEC_H
#define SONDE_VEC_H

#include <stddef.h>
#include <stdlib.h>

#include "xalloc.h"

#define VEC(T)                                                                 \
	struct {                                                               \
		T *data;                                                       \
		size_t len, cap;                                               \
	}

#define vec_reserve(v, n)                                                      \
	do {                                                                   \
		if ((v)->len + (n) > (v)->cap) {                               \
			size_t vec_nc_ = (v)->cap ? (v)->cap * 2 : 8;          \
			while (vec_nc_ < (v)->len + (n))                       \
				vec_nc_ *= 2;                                  \
			(v)->data = xreallocarray((v)->data, vec_nc_,          \
						  sizeof(*(v)->data));         \
			(v)->cap = vec_nc_;                                    \
		}                                                              \
	} while (0)

#define vec_push(v, x)                                                         \
	do {                                                                   \
		vec_reserve(v, 1);                                             \
		(v)->data[(v)->len++] = (x);                                   \
	} while (0)

#define vec_free(v)                                                            \
	do {                                                                   \
		free((v)->data);                                               \
		(v)->data = NULL;                                              \
		(v)->len = (v)->cap = 0;                                       \
	} while (0)

#endif
