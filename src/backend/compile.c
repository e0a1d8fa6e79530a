/* The back-end pipeline behind ir_compile(). */
#include "backend/ir_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ir_compile(struct ir *ir, struct bpf_code *out)
{
	memset(out, 0, sizeof(*out));
	if (ir->err[0])
		return -EINVAL;
	if (ir->compiled)
		return ir_fail(ir, EINVAL, "ir_compile called twice");
	ir->compiled = true;

	int8_t *preg = NULL;
	struct mi_list ml = { 0 };
	ir_coalesce_slots(ir);
	ir_split_webs(ir);
	ir_fold_consts(ir);
	int err = ir_regalloc(ir, &preg);
	if (!err)
		err = ir_lower(ir, preg, &ml);
	if (!err) {
		ir_peephole(&ml);
		err = ir_encode(ir, &ml, out);
	}
	vec_free(&ml.v);
	free(preg);
	return err;
}

