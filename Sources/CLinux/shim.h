#ifndef LUMEN_CLINUX_SHIM_H
#define LUMEN_CLINUX_SHIM_H
// glibc calls that the Glibc Swift module does not expose.
#include <malloc.h>
#endif
