/* falseframe: a call made while the frame pointer points at data, as code
 * built without frame pointers leaves it (there %rbp is just another
 * register). A frame-pointer walk from ff_target's entry then reads the
 * address of a data word as a return address: a false frame, which sonde
 * must end the stack at, marked, rather than print (tests
 * ustack_false_frame*). ff_caller is a local symbol: in a copy stripped
 * of .symtab (built with -rdynamic, so .dynsym keeps ff_target) it has no
 * name. x86_64 only.
 *   cc -O2 -rdynamic -o falseframe falseframe.c; ./falseframe [CALLS]
 */
#include <stdlib.h>

/* The fake frame: no next frame, and a "return address" into .data. */
unsigned long ff_fake[2];
unsigned long ff_data_word = 42;

__asm__(".text\n"
	".globl ff_target\n"
	".type ff_target, @function\n"
	"ff_target:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	pop %rbp\n"
	"	ret\n"
	".size ff_target, .-ff_target\n"
	".type ff_caller, @function\n"
	"ff_caller:\n"
	"	push %rbp\n"
	"	lea ff_fake(%rip), %rbp\n"
	"	call ff_target\n"
	"	pop %rbp\n"
	"	ret\n"
	".size ff_caller, .-ff_caller\n");

void ff_caller(void);

int main(int argc, char **argv)
{
	ff_fake[0] = 0;
	ff_fake[1] = (unsigned long)&ff_data_word;
	for (long n = argc > 1 ? atol(argv[1]) : 1; n > 0; n--)
		ff_caller();
	return 0;
}
