#include "stdsort.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define THRESHOLD 16 /* libstdc++'s _S_threshold */

struct sorter {
	stdsort_less less;
	void *ctx;
};

static bool lt(const struct sorter *s, const void *a, const void *b)
{
	return s->less(a, b, s->ctx);
}

static void swap(void **a, void **b)
{
	void *t = *a;
	*a = *b;
	*b = t;
}

/* std::__push_heap */
static void push_heap(const struct sorter *s, void **first, ptrdiff_t hole,
		      ptrdiff_t top, void *value)
{
	ptrdiff_t parent = (hole - 1) / 2;
	while (hole > top && lt(s, first[parent], value)) {
		first[hole] = first[parent];
		hole = parent;
		parent = (hole - 1) / 2;
	}
	first[hole] = value;
}

/* std::__adjust_heap */
static void adjust_heap(const struct sorter *s, void **first, ptrdiff_t hole,
			ptrdiff_t len, void *value)
{
	ptrdiff_t top = hole, child = hole;
	while (child < (len - 1) / 2) {
		child = 2 * (child + 1);
		if (lt(s, first[child], first[child - 1]))
			child--;
		first[hole] = first[child];
		hole = child;
	}
	if ((len & 1) == 0 && child == (len - 2) / 2) {
		child = 2 * (child + 1);
		first[hole] = first[child - 1];
		hole = child - 1;
	}
	push_heap(s, first, hole, top, value);
}

/* std::__partial_sort(first, last, last): make_heap, then sort_heap. */
static void heap_sort(const struct sorter *s, void **first, void **last)
{
	ptrdiff_t len = last - first;
	if (len >= 2) {
		for (ptrdiff_t parent = (len - 2) / 2;; parent--) {
			adjust_heap(s, first, parent, len, first[parent]);
			if (parent == 0)
				break;
		}
	}
	while (last - first > 1) {
		--last;
		void *value = *last;
		*last = *first;
		adjust_heap(s, first, 0, last - first, value);
	}
}

/* std::__move_median_to_first */
static void median_to_first(const struct sorter *s, void **result, void **a,
			    void **b, void **c)
{
	if (lt(s, *a, *b)) {
		if (lt(s, *b, *c))
			swap(result, b);
		else if (lt(s, *a, *c))
			swap(result, c);
		else
			swap(result, a);
	} else if (lt(s, *a, *c)) {
		swap(result, a);
	} else if (lt(s, *b, *c)) {
		swap(result, c);
	} else {
		swap(result, b);
	}
}

/* std::__unguarded_partition */
static void **partition(const struct sorter *s, void **first, void **last,
			void **pivot)
{
	for (;;) {
		while (lt(s, *first, *pivot))
			++first;
		--last;
		while (lt(s, *pivot, *last))
			--last;
		if (!(first < last))
			return first;
		swap(first, last);
		++first;
	}
}

/* std::__introsort_loop */
static void introsort(const struct sorter *s, void **first, void **last,
		      int depth)
{
	while (last - first > THRESHOLD) {
		if (depth == 0) {
			heap_sort(s, first, last);
			return;
		}
		--depth;
		void **mid = first + (last - first) / 2;
		median_to_first(s, first, first + 1, mid, last - 1);
		void **cut = partition(s, first + 1, last, first);
		introsort(s, cut, last, depth);
		last = cut;
	}
}

/* std::__unguarded_linear_insert */
static void linear_insert(const struct sorter *s, void **last)
{
	void *value = *last;
	void **next = last - 1;
	while (lt(s, value, *next)) {
		*last = *next;
		last = next;
		--next;
	}
	*last = value;
}

/* std::__insertion_sort */
static void insertion_sort(const struct sorter *s, void **first, void **last)
{
	if (first == last)
		return;
	for (void **i = first + 1; i != last; ++i) {
		if (lt(s, *i, *first)) {
			void *value = *i;
			memmove(first + 1, first, (size_t)(i - first) * sizeof(*i));
			*first = value;
		} else {
			linear_insert(s, i);
		}
	}
}

void stdsort_sort(void **v, size_t n, stdsort_less less, void *ctx)
{
	struct sorter s = { less, ctx };
	if (n < 2)
		return;
	int lg = 63 - __builtin_clzll((unsigned long long)n);
	introsort(&s, v, v + n, 2 * lg);
	/* std::__final_insertion_sort */
	if (n > THRESHOLD) {
		insertion_sort(&s, v, v + THRESHOLD);
		for (void **i = v + THRESHOLD; i != v + n; ++i)
			linear_insert(&s, i);
	} else {
		insertion_sort(&s, v, v + n);
	}
}

static void merge_sort(const struct sorter *s, void **v, void **tmp, size_t n)
{
	if (n < 2)
		return;
	size_t h = n / 2, i = 0, j = h, k = 0;
	merge_sort(s, v, tmp, h);
	merge_sort(s, v + h, tmp, n - h);
	while (i < h && j < n)
		tmp[k++] = lt(s, v[j], v[i]) ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

void stdsort_stable(void **v, size_t n, stdsort_less less, void *ctx)
{
	struct sorter s = { less, ctx };
	void **tmp = xmalloc((n ? n : 1) * sizeof(*tmp));
	merge_sort(&s, v, tmp, n);
	free(tmp);
}
