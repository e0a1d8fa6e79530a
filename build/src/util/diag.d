build/src/util/diag.o: src/util/diag.c src/util/diag.h
src/util/diag.h:
