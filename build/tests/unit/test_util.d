build/tests/unit/test_util: tests/unit/test_util.c tests/unit/check.h \
 src/util/arena.h src/util/strbuf.h src/util/vec.h src/util/xalloc.h
tests/unit/check.h:
src/util/arena.h:
src/util/strbuf.h:
src/util/vec.h:
src/util/xalloc.h:
