build/src/util/arena.o: src/util/arena.c src/util/arena.h \
 src/util/xalloc.h
src/util/arena.h:
src/util/xalloc.h:
