#ifndef LATCHKEY_CMALLOC_SHIM_H
#define LATCHKEY_CMALLOC_SHIM_H
// glibc's allocator controls (mallopt, malloc_trim), which Swift's Glibc module does not export.
#if defined(__linux__) && __has_include(<malloc.h>)
#include <malloc.h>
#endif
#endif
