/* --object FILE: the two kinds of object sonde runs. */
#ifndef SONDE_DRIVER_OBJECTS_H
#define SONDE_DRIVER_OBJECTS_H

#include "driver/cli.h"

/* A clang-built BPF object: its programs attached by section name. */
int objects_run_clang(const struct options *o);

/* An object --emit-elf wrote: run as its script would be. */
int objects_run_emitted(const struct options *o);

#endif
