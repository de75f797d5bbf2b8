/* prefix_cache.c: the shared beginnings of a caller's runs (run.h): the tags of the batch
 * that runs and the counts, for the solver that keeps the states (solver.h). */
#include <config.h>

#include <stdlib.h>

#include "solver.h"

fl_prefix_cache *fl_prefix_cache_new(void)
{
  return calloc(1, sizeof(fl_prefix_cache));
}

void fl_prefix_cache_free(fl_prefix_cache *c)
{
  if (!c)
    return;
  if (c->kept && c->kept_free)
    c->kept_free(c->kept);
  free(c);
}

void fl_prefix_cache_tags(fl_prefix_cache *c, int nspec, int ntag, const double *tags)
{
  c->tags = ntag > 0 && ntag <= FL_PREFIX_TAG_MAX ? tags : NULL;
  c->ntag = c->tags ? ntag : 0;
  c->nspec = c->tags ? nspec : 0;
}

void fl_prefix_cache_counts(const fl_prefix_cache *c, long *starts, long *skipped)
{
  *starts = c ? c->starts : 0;
  *skipped = c ? c->skipped : 0;
}
