/* BTF func_info for programs with callbacks (see funcinfo.h). */
#include "runtime/funcinfo.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

int funcinfo_prepare(struct funcinfo *fi, const struct bpf_insn *insns,
		     uint32_t n, struct bpf_prog_load_opts *lo)
{
	memset(fi, 0, sizeof(*fi));
	uint32_t nfn = 0;
	for (uint32_t i = 0; i + 1 < n; i++)
		nfn += insns[i].code == (BPF_LD | BPF_IMM | BPF_DW) &&
		       insns[i].src_reg == BPF_PSEUDO_FUNC;
	if (!nfn)
		return 0;
	uint32_t *starts = calloc(nfn + 1, sizeof(*starts));
	if (!starts)
		return -ENOMEM;
	uint32_t k = 0;
	starts[k++] = 0;
	for (uint32_t i = 0; i + 1 < n; i++) {
		if (insns[i].code == (BPF_LD | BPF_IMM | BPF_DW)) {
			if (insns[i].src_reg == BPF_PSEUDO_FUNC)
				starts[k++] = i + (uint32_t)insns[i].imm + 1;
			i++;
		}
	}
	qsort(starts, k, sizeof(*starts), cmp_u32);
	uint32_t u = 0;
	for (uint32_t i = 0; i < k; i++)
		if (!u || starts[i] != starts[u - 1])
			starts[u++] = starts[i];
	struct btf *btf = btf__new_empty();
	int err = btf ? 0 : -errno;
	struct bpf_func_info *recs = calloc(u, sizeof(*recs));
	if (!err && !recs)
		err = -ENOMEM;
	int ity = err ? -1 : btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	if (!err && ity < 0)
		err = ity;
	for (uint32_t i = 0; i < u && !err; i++) {
		/* every function takes up to 5 longs and returns one: the
		 * kernel types a callback's arguments by its helper */
		int proto = btf__add_func_proto(btf, ity);
		int nargs = i == 0 ? 1 : 5;
		for (int a = 0; a < nargs && proto > 0; a++) {
			char an[16];
			snprintf(an, sizeof(an), "a%d", a);
			if (btf__add_func_param(btf, an, ity) < 0)
				proto = -1;
		}
		char fn[32];
		snprintf(fn, sizeof(fn), i ? "sonde_cb%u" : "sonde_prog", i);
		int f = proto > 0 ? btf__add_func(btf, fn, i ? BTF_FUNC_STATIC :
						  BTF_FUNC_GLOBAL, proto) : -1;
		if (f < 0) {
			err = -EINVAL;
			break;
		}
		recs[i].insn_off = starts[i];
		recs[i].type_id = (uint32_t)f;
	}
	free(starts);
	if (!err)
		err = btf__load_into_kernel(btf);
	if (err) {
		btf__free(btf);
		free(recs);
		return err < 0 ? err : -EINVAL;
	}
	fi->btf = btf;
	fi->recs = recs;
	fi->nrecs = u;
	lo->prog_btf_fd = btf__fd(btf);
	lo->func_info = recs;
	lo->func_info_cnt = u;
	lo->func_info_rec_size = sizeof(*recs);
	return 0;
}

void funcinfo_free(struct funcinfo *fi)
{
	btf__free(fi->btf);
	free(fi->recs);
	memset(fi, 0, sizeof(*fi));
}
