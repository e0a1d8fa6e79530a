/* The back-end pipeline behind ir_compile(). */
#include "backend/ir_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Refuses, before the passes, a program that cannot fit whatever they
 * do: every call the CFG reaches stays one instruction. */
static int check_size_early(struct ir *ir)
{
	struct ir_cfg cfg;
	if (ir_cfg_build(ir, &cfg))
		return 0; /* said again, by the pass that needs the CFG */
	ir_cfg_free(&cfg);
	size_t calls = 0;
	for (size_t i = 0; i < ir->insns.len; i++)
		calls += ir->insns.data[i].kind == IRK_CALL;
	if (calls <= IR_MAX_INSNS)
		return 0;
	return ir_fail(ir, E2BIG, "the program has at least %zu BPF "
		       "instructions (its helper calls alone), more than the "
		       "%d the kernel loads in one program", calls,
		       IR_MAX_INSNS);
}

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
	int err = check_size_early(ir);
	if (err)
		return err;
	ir_coalesce_slots(ir);
	ir_split_webs(ir);
	ir_fold_consts(ir);
	err = ir_regalloc(ir, &preg);
	if (!err)
		err = ir_lower(ir, preg, &ml);
	if (!err) {
		ir_peephole(&ml);
		err = ir_relax_jumps(ir, &ml);
	}
	if (!err)
		err = ir_encode(ir, &ml, out);
	vec_free(&ml.v);
	free(preg);
	return err;
}

