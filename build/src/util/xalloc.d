build/src/util/xalloc.o: src/util/xalloc.c src/util/xalloc.h
src/util/xalloc.h:
