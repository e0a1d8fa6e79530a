/* Map layout sizes. See maplayout.h. */
#include "maplayout.h"

#include "model/types.h"

static uint32_t round8(uint32_t n)
{
	return (n + 7) & ~7u;
}

/* hist, lhist and tseries keys end with a u64 bucket */
static bool is_hist(const struct type *v)
{
	return v->kind == TY_HIST || v->kind == TY_LHIST ||
	       v->kind == TY_TSERIES;
}

uint32_t maplayout_bucket_offset(const struct type *key)
{
	return key ? round8(key->size) : 0;
}

uint32_t maplayout_key_size(const struct type *key, const struct type *value)
{
	if (is_hist(value))
		return maplayout_bucket_offset(key) + 8;
	return key ? key->size : 8;
}

uint32_t maplayout_value_size(const struct type *value)
{
	switch (value->kind) {
	case TY_COUNT: case TY_SUM: case TY_HIST: case TY_LHIST:
		return 8;
	case TY_MIN: case TY_MAX: case TY_AVG: case TY_STATS:
		return 16;
	default:
		return value->size;
	}
}

uint32_t maplayout_array_value_size(const struct type *value)
{
	return value->kind == TY_SUM ? 16 : maplayout_value_size(value);
}

uint32_t maplayout_array_entries(const struct type *value)
{
	switch (value->kind) {
	case TY_HIST: case TY_LHIST:
		return maplayout_nbuckets(value) + 1;
	default:
		return 2;
	}
}

uint32_t maplayout_nbuckets(const struct type *vt)
{
	if (vt->kind == TY_HIST)
		return hist_log2k_nbuckets(vt->hbits);
	if (vt->lstep <= 0 || vt->lmax < vt->lmin)
		return 0;
	return hist_linear_nbuckets(vt->lmin, vt->lmax, vt->lstep);
}

uint32_t maplayout_percpu_stride(uint32_t value_size)
{
	return round8(value_size);
}
