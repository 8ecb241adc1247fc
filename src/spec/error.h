/* Failing with a message: every library error goes through here so that a NULL `err` is always allowed. */
#ifndef HS_ERROR_H
#define HS_ERROR_H
#include "hmasweep.h"

/* Write the formatted message into err (when non-NULL) and return status. */
__attribute__((format(printf, 3, 4))) hs_status hs_fail(hs_error *err, hs_status status, const char *fmt, ...);
#endif
