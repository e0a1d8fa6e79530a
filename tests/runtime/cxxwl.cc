// C++ workload for the demangling tests: a namespaced method, an overload
// and a template, called a known number of times from main.
#include <cstdio>

namespace ns {
struct Klass {
	int method(int x);
	int method(double x);
};
__attribute__((noinline)) int Klass::method(int x) { return x * 2; }
__attribute__((noinline)) int Klass::method(double x) { return (int)x; }
template <typename T> __attribute__((noinline)) T twice(T v) { return v + v; }
} // namespace ns

int main()
{
	ns::Klass k;
	volatile int s = 0;
	for (int i = 0; i < 3; i++)
		s += k.method(i);
	s += k.method(1.5);
	s += ns::twice<long>(2);
	printf("%d\n", s);
	return 0;
}
