/* fit_item.h: a fit file being loaded and one of its data items, shared by the walk of
 * its blocks (yaml_fit.c) and the reading and checks of an item's table (fit_rows.c);
 * private to them (fit.h is the public side). */
#ifndef FL_FIT_ITEM_H
#define FL_FIT_ITEM_H

#include <stddef.h>
#include <yaml.h>

#include "fit.h"
#include "yaml_input.h"

#define FL_FIT_MAX_REGIONS 16 /* weights: regions of one curve */

/* A fit file being loaded. */
typedef struct {
  fl_yaml_reader r;          /* the fit file, its document and the message */
  fl_fit *fit;
  const char *const *sets;   /* -s KEY=VALUE for every experiment */
  int nsets;
  const char *data_file;     /* NULL, or the table that replaces the file of the curve item (a campaign) */
  double x_min;              /* >= 0: replaces the curve items' x_min, m or rad (a campaign's data.x_min) */
  double x_max;              /* > 0: replaces the curve items' x_max (a campaign's data.x_max) */
} fl_fit_loader;

/* One data item being loaded: its nodes, and what its keys said of its table. */
typedef struct {
  fl_fit_data *d;
  yaml_node_t *node;                 /* its block */
  char what[32];                     /* "data[1]", for messages */
  yaml_node_t *vtest;                /* the value of test */
  yaml_node_t *vtable;               /* the value of file (a curve) or peaks */
  yaml_node_t *vxmin, *vxmax, *vkink; /* the values of x_min, x_max, kink_weight, or NULL */
  yaml_node_t *vstart;                /* start_weight's, or NULL */
  int nreg;                          /* weights: regions of the abscissa, each with its weight */
  double reg_lo[FL_FIT_MAX_REGIONS], reg_hi[FL_FIT_MAX_REGIONS], reg_w[FL_FIT_MAX_REGIONS];
  int first;                         /* the first column read: 0 (x and y), 1 (y alone: peaks) */
  yaml_node_t *cnode[2];             /* the values of columns.x and columns.y */
  int cnum[2];                       /* column numbers from 1, or 0: by name */
  char cname[2][256];                /* header names */
  char ckey[2][96];                  /* "data[1].columns.x" */
  double to_si[2];                   /* the units' SI values */
} fl_fit_item;

/* A line in the fit's notes, kind "warning" or "note", at node n (NULL: no place). */
void fl_fit_note(fl_fit_loader *L, const char *kind, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Read the item's table (its file or peaks) and check it as its kind needs: a curve's
 * rows kept in its range, with their region weights; the spread of peaks; the extremes
 * of a ring-down.  FL_OK, or an error status with the message in L->r.err. */
int fl_fit_item_rows(fl_fit_loader *L, fl_fit_item *it);

#endif
