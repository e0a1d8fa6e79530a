// twl: the workload of the value and type tests (structs, arrays, bitfields,
// pointer chains). Each noinline function gets pointers to data whose
// contents are known, so a script can read them through uprobe arguments
// and print what bpftrace prints. Linked dynamically, built -O1.
#include <stdint.h>

struct twl_inner {
	int a;
	int b;
};

struct twl_flags {
	unsigned int lo : 3;
	unsigned int mid : 5;
	unsigned int hi : 24;
};

struct twl_outer {
	int id;
	struct twl_inner in;
	int grid[2][3];
	struct twl_flags fl;
	long long big;
};

struct twl_node {
	int val;
	struct twl_node *next;
};

#define BARRIER(p) __asm__ volatile("" ::"r"(p) : "memory")

__attribute__((noinline)) int twl_arr(uint32_t *a, uint64_t *b)
{
	BARRIER(a);
	BARRIER(b);
	return (int)(a[0] + b[0]);
}

__attribute__((noinline)) int twl_outer(struct twl_outer *o)
{
	BARRIER(o);
	return o->id;
}

__attribute__((noinline)) int twl_pp(struct twl_inner **pp)
{
	BARRIER(pp);
	return (*pp)->a;
}

__attribute__((noinline)) int twl_list(struct twl_node *n)
{
	BARRIER(n);
	return n->val;
}

__attribute__((noinline)) int twl_ptrs(int **arr)
{
	BARRIER(arr);
	return *arr[0];
}

/* four chars and no NUL */
__attribute__((noinline)) int twl_tag(const char *t)
{
	BARRIER(t);
	return t[0];
}

int main(void)
{
	/* written here so that its page is present when the probe reads it
	 * (a BPF read cannot fault a page in) */
	static char tag[4];
	tag[0] = 'a', tag[1] = 'b', tag[2] = 'c', tag[3] = 'd';
	static uint32_t a[4] = { 10, 20, 30, 40 };
	static uint64_t b[3] = { 100, 200, 300 };
	static struct twl_outer o[2] = {
		{ 7, { 1, 2 }, { { 1, 2, 3 }, { 4, 5, 6 } }, { 5, 17, 123456 },
		  -9 },
		{ 8, { 3, 4 }, { { 7, 8, 9 }, { 10, 11, 12 } }, { 2, 31, 7 },
		  42 },
	};
	static struct twl_inner in = { 11, 22 };
	static struct twl_inner *pin = &in;
	static struct twl_node n3 = { 3, 0 }, n2 = { 2, &n3 }, n1 = { 1, &n2 };
	static int x = 5, y = 6, z = 7;
	static int *ptrs[3] = { &x, &y, &z };
	int r = 0;
	r += twl_arr(a, b);
	r += twl_outer(o);
	r += twl_pp(&pin);
	r += twl_list(&n1);
	r += twl_ptrs(ptrs);
	r += twl_tag(tag);
	return r == 0;
}
