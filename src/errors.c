/* errors.c: names of the library's status codes. */
#include <config.h>

#include "fl_defs.h"

const char *fl_strerror(int status)
{
  switch (status) {
  case FL_OK: return "success";
  case FL_EINPUT: return "bad input";
  case FL_ENOMEM: return "out of memory";
  case FL_EIO: return "input/output error";
  case FL_EUNSTABLE: return "the run became unstable";
  case FL_ETIMESTEP: return "time step above the stability bound";
  case FL_EGNUPLOT: return "gnuplot missing or failed";
  case FL_EINTERRUPT: return "interrupted";
  case FL_ELIMIT: return "size limit exceeded";
  case FL_ENUMERIC: return "a numerical method did not converge";
  }
  return "unknown status";
}
