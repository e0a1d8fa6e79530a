#include "output.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "model/types.h"
#include "runtime/value_fmt.h"
#include "util/strbuf.h"

/* The formats. A new one is a new file and a line here. */
static const struct out_ops *const formats[] = {
	&out_text_ops,
	&out_json_ops,
};

int out_init(struct out *o, const char *format, FILE *f,
	     const struct out_resolver *res)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (!strcmp(formats[i]->name, format)) {
			o->ops = formats[i];
			o->f = f;
			o->console = f;
			o->err = stderr;
			o->res = res;
			o->ctx = NULL;
			return 0;
		}
	}
	return -EINVAL;
}

void out_write(struct out *o, const struct strbuf *sb)
{
	fwrite(sb_str(sb), 1, sb->len, o->f);
	fflush(o->f);
}

int64_t out_average(const void *value)
{
	int64_t sum;
	uint64_t count;
	memcpy(&sum, value, 8);
	memcpy(&count, (const uint8_t *)value + 8, 8);
	return count ? sum / (int64_t)count : 0;
}

void out_scalar(struct strbuf *sb, const struct type *t, const void *value,
		uint64_t div)
{
	uint64_t v;
	bool is_signed;
	switch (t->kind) {
	case TY_INT:
		v = vfmt_load_int(value, t->size, t->is_signed);
		is_signed = t->is_signed;
		break;
	case TY_BOOL:
		v = *(const uint8_t *)value != 0;
		is_signed = false;
		break;
	case TY_AVG:
		v = (uint64_t)out_average(value);
		is_signed = true;
		break;
	case TY_MIN:
	case TY_MAX:
		memcpy(&v, value, 8);
		is_signed = true;
		break;
	case TY_SUM:
		memcpy(&v, value, 8);
		is_signed = t->is_signed;
		break;
	default: /* COUNT, PTR */
		memcpy(&v, value, 8);
		is_signed = false;
		break;
	}
	if (div == 0)
		div = 1;
	if (is_signed)
		sb_printf(sb, "%" PRId64, (int64_t)v / (int64_t)div);
	else
		sb_printf(sb, "%" PRIu64, v / div);
}

