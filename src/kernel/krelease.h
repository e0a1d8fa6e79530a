/*
 * The running kernel's release, for the reader of a refusal: sonde
 * decides what a kernel can do from the feature table (features.h),
 * never from this number.
 */
#ifndef SONDE_KRELEASE_H
#define SONDE_KRELEASE_H

#include <stddef.h>

#include "kernel/features.h"

/* "5.10" of uname's "5.10.0-46-amd64" (its release up to the second
 * number), or the whole release when it has no such form. */
const char *krelease(void);

/* Writes "NAME (Linux V); this kernel is R" into buf: why a construct
 * that needs feature f, whose user-visible name is name (a helper:
 * "bpf_loop"), is refused here. When --no-feature turned f off, the tail
 * says so instead of the release. */
void krelease_needs(char *buf, size_t len, const char *name,
		    enum feat_id f);

#endif
