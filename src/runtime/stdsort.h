/*
 * Sorting as bpftrace 0.17 sorts map entries. It uses std::sort, which is
 * not stable: entries with equal values come out in an order only the same
 * algorithm reproduces. stdsort_sort is libstdc++'s std::sort (introsort:
 * median-of-3 quicksort down to runs of 16, heapsort past 2*log2(n) levels,
 * then insertion sort), step for step, on an array of pointers.
 */
#ifndef SONDE_STDSORT_H
#define SONDE_STDSORT_H

#include <stdbool.h>
#include <stddef.h>

typedef bool (*stdsort_less)(const void *a, const void *b, void *ctx);

void stdsort_sort(void **v, size_t n, stdsort_less less, void *ctx);
/* std::stable_sort: any stable sort gives its result; this is a merge sort. */
void stdsort_stable(void **v, size_t n, stdsort_less less, void *ctx);

#endif
