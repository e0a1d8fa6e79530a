build/src/lang/ast.o: src/lang/ast.c src/lang/ast.h src/lang/types.h \
 src/util/diag.h src/util/strbuf.h
src/lang/ast.h:
src/lang/types.h:
src/util/diag.h:
src/util/strbuf.h:
