// Symbol visibility: the one macro through which Strata exports its API.
#pragma once

#if defined(_WIN32)
#define STRATA_EXPORT __declspec(dllexport)
#else
#define STRATA_EXPORT __attribute__((visibility("default")))
#endif
