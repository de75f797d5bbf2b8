/* shape.c: the rest shape and sections of a specimen (shape.h). */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fl_defs.h"
#include "measured.h"
#include "shape.h"

static const double unit_si[] = {1.0, 1e-3, 1e-6};
static const char *const unit_name[] = {"m", "mm", "um"};

/* A table file read as pairs of columns (cols[0], cols[1]), (cols[2], cols[3]), ...
 * (libcsv, through fl_measured_read): col[k] holds column cols[k]; lines are the file's. */
typedef struct {
  int n;           /* rows */
  double *col[6];  /* columns 1.. as read (SI where a length) */
  int *line;       /* file line of each row */
} table;

static void table_free(table *t)
{
  for (int c = 0; c < 6; c++)
    free(t->col[c]);
  free(t->line);
  memset(t, 0, sizeof *t);
}

/* Read ncol (2, 4 or 6) columns cols[] (1-based) of path for key; to_si[c] scales the
 * c-th. */
static int table_read(const char *path, const char *key, int ncol, const int *cols, const double *to_si, table *t,
                      char *err, size_t errlen)
{
  memset(t, 0, sizeof *t);
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "%s: %s: cannot be read: %s; allowed: a readable CSV file, relative to the experiment file",
             path, key, strerror(errno));
    return FL_EIO;
  }
  fclose(f);
  for (int c = 0; c < ncol; c += 2) {
    fl_measured m;
    fl_measured_source src = {path, path, key, path};
    fl_measured_column cx = {cols[c], NULL, to_si[c], key, path}, cy = {cols[c + 1], NULL, to_si[c + 1], key, path};
    int rc = fl_measured_read(&src, &cx, &cy, &m, err, errlen);
    if (rc) {
      table_free(t);
      return rc;
    }
    if (c > 0 && m.n != t->n) { /* cannot happen: every column is read on every row */
      fl_measured_free(&m);
      table_free(t);
      snprintf(err, errlen, "%s: %s: rows differ between columns; allowed: every row with %d numbers", path, key, ncol);
      return FL_EINPUT;
    }
    t->n = m.n;
    t->col[c] = m.x;
    t->col[c + 1] = m.y;
    m.x = m.y = NULL;
    if (c == 0) {
      t->line = m.line;
      m.line = NULL;
    }
    fl_measured_free(&m);
  }
  return FL_OK;
}

/* ---- the centreline --------------------------------------------------------- */

typedef struct {
  int kind;        /* enum fl_shape_kind */
  double L;        /* arc length, m */
  double rho, phi; /* arc: radius, angle */
  int np;          /* polyline: points */
  double *px, *py; /* polyline: points, chord along x centred at 0 */
  double *ps;      /* polyline: arc length at each point */
  int *pline;      /* polyline: file line of each point */
} curve;

static void curve_free(curve *c)
{
  free(c->px);
  free(c->py);
  free(c->ps);
  free(c->pline);
}

/* Read and check the polyline: at least 2 points, none repeating the one before, ends
 * apart; the chord between its ends along x, centred at 0. */
static int polyline_read(const fl_fiber_def *fb, curve *c, char *err, size_t errlen)
{
  double u = unit_si[fb->table_unit], to_si[2] = {u, u};
  table t;
  static const int cols[] = {1, 2};
  int rc = table_read(fb->polyline, "fiber.polyline", 2, cols, to_si, &t, err, errlen);
  if (rc)
    return rc;
  rc = FL_EINPUT;
  if (t.n < 2) {
    snprintf(err, errlen, "%s:%d: fiber.polyline: %d point%s; allowed: at least 2 points (x, y) of the centreline",
             fb->polyline, t.n ? t.line[0] : 1, t.n, t.n == 1 ? "" : "s");
    goto done;
  }
  double ax = t.col[0][0], ay = t.col[1][0], bx = t.col[0][t.n - 1], by = t.col[1][t.n - 1];
  double total = 0.0;
  for (int k = 1; k < t.n; k++)
    total += hypot(t.col[0][k] - t.col[0][k - 1], t.col[1][k] - t.col[1][k - 1]);
  for (int k = 1; k < t.n; k++)
    if (!(hypot(t.col[0][k] - t.col[0][k - 1], t.col[1][k] - t.col[1][k - 1]) > 1e-9 * total)) {
      snprintf(err, errlen,
               "%s:%d: fiber.polyline: the point (%g, %g) %s repeats the one before (line %d); allowed: each point "
               "apart from the one before",
               fb->polyline, t.line[k], t.col[0][k] / u, t.col[1][k] / u, unit_name[fb->table_unit], t.line[k - 1]);
      goto done;
    }
  double chord = hypot(bx - ax, by - ay);
  if (!(chord > 1e-6 * total)) {
    snprintf(err, errlen, "%s:%d: fiber.polyline: the last point meets the first (line %d); allowed: an open "
             "centreline, its ends apart", fb->polyline, t.line[t.n - 1], t.line[0]);
    goto done;
  }
  double ca = (bx - ax) / chord, sa = (by - ay) / chord, mx = 0.5 * (ax + bx), my = 0.5 * (ay + by);
  c->np = t.n;
  c->px = malloc((size_t)t.n * sizeof *c->px);
  c->py = malloc((size_t)t.n * sizeof *c->py);
  c->ps = malloc((size_t)t.n * sizeof *c->ps);
  c->pline = malloc((size_t)t.n * sizeof *c->pline);
  if (!c->px || !c->py || !c->ps || !c->pline) {
    rc = FL_ENOMEM;
    snprintf(err, errlen, "out of memory");
    goto done;
  }
  for (int k = 0; k < t.n; k++) {
    double dx = t.col[0][k] - mx, dy = t.col[1][k] - my;
    c->px[k] = ca * dx + sa * dy; /* turned so that the chord lies along +x */
    c->py[k] = -sa * dx + ca * dy;
    c->ps[k] = k ? c->ps[k - 1] + hypot(c->px[k] - c->px[k - 1], c->py[k] - c->py[k - 1]) : 0.0;
    c->pline[k] = t.line[k];
  }
  c->L = c->ps[t.n - 1];
  rc = FL_OK;
done:
  table_free(&t);
  return rc;
}

int fl_shape_polyline_length(const fl_fiber_def *fb, double *length, char *err, size_t errlen)
{
  curve c;
  memset(&c, 0, sizeof c);
  int rc = polyline_read(fb, &c, err, errlen);
  if (rc == FL_OK)
    *length = c.L;
  curve_free(&c);
  return rc;
}

/* The point at arc length s (clamped to the ends). */
static fl_vec3 curve_at(const curve *c, double s)
{
  s = s < 0.0 ? 0.0 : (s > c->L ? c->L : s);
  if (c->kind == FL_SHAPE_ARC) { /* the middle highest, the ends on y = 0 */
    double a = (s - 0.5 * c->L) / c->rho;
    return fl_v3(c->rho * sin(a), c->rho * (cos(a) - cos(0.5 * c->phi)), 0.0);
  }
  if (c->kind == FL_SHAPE_POLYLINE) {
    int k = 1;
    while (k < c->np - 1 && c->ps[k] < s)
      k++;
    double w = (s - c->ps[k - 1]) / (c->ps[k] - c->ps[k - 1]);
    return fl_v3(c->px[k - 1] + w * (c->px[k] - c->px[k - 1]), c->py[k - 1] + w * (c->py[k] - c->py[k - 1]), 0.0);
  }
  return fl_v3(s - 0.5 * c->L, 0.0, 0.0);
}

/* The polyline point nearest to arc length s: its file line. */
static int curve_line(const curve *c, double s)
{
  int best = 0;
  for (int k = 1; k < c->np; k++)
    if (fabs(c->ps[k] - s) < fabs(c->ps[best] - s))
      best = k;
  return c->pline[best];
}

/* ---- sections ------------------------------------------------------------------ */

/* The section table: arc lengths rising, outer radius above 0, ratio in [0, 1). */
static int sections_from_table(const fl_fiber_def *fb, fl_shape *sh, char *err, size_t errlen)
{
  double u = unit_si[fb->table_unit], to_si[4] = {u, u, u, 1.0};
  static const int cols[] = {1, 2, 1, 3}; /* arc length, outer radius; arc length, ratio */
  table t;
  int rc = table_read(fb->section_table, "fiber.section_table", 4, cols, to_si, &t, err, errlen);
  if (rc)
    return rc;
  rc = FL_EINPUT;
  const double *s = t.col[0], *R = t.col[1], *q = t.col[3];
  if (t.n < 1) {
    snprintf(err, errlen, "%s:1: fiber.section_table: no rows; allowed: rows of arc length, outer radius, inner "
             "radius ratio", fb->section_table);
    goto done;
  }
  for (int k = 0; k < t.n; k++) {
    if (!(R[k] > 0.0)) {
      snprintf(err, errlen, "%s:%d: fiber.section_table: outer radius %g %s: the section vanishes; allowed: an outer "
               "radius above 0", fb->section_table, t.line[k], R[k] / u, unit_name[fb->table_unit]);
      goto done;
    }
    if (!(q[k] >= 0.0 && q[k] < 1.0)) {
      snprintf(err, errlen, "%s:%d: fiber.section_table: inner radius ratio %g%s; allowed: a ratio in [0, 1)",
               fb->section_table, t.line[k], q[k], q[k] >= 1.0 ? ": the wall vanishes" : "");
      goto done;
    }
    if (k > 0 && !(s[k] > s[k - 1])) {
      snprintf(err, errlen, "%s:%d: fiber.section_table: arc length %g %s is not above the row before's %g; "
               "allowed: arc lengths rising from row to row", fb->section_table, t.line[k], s[k] / u,
               unit_name[fb->table_unit], s[k - 1] / u);
      goto done;
    }
  }
  /* linear between rows, the end rows' values beyond them */
  for (int i = 0; i < sh->n; i++) {
    double si = sh->s[i];
    int k = 1;
    while (k < t.n - 1 && s[k] < si)
      k++;
    if (t.n == 1 || si <= s[0]) {
      sh->r_out[i] = R[0];
      sh->ratio[i] = q[0];
    } else if (si >= s[t.n - 1]) {
      sh->r_out[i] = R[t.n - 1];
      sh->ratio[i] = q[t.n - 1];
    } else {
      double w = (si - s[k - 1]) / (s[k] - s[k - 1]);
      sh->r_out[i] = R[k - 1] + w * (R[k] - R[k - 1]);
      sh->ratio[i] = q[k - 1] + w * (q[k] - q[k - 1]);
    }
  }
  rc = FL_OK;
done:
  table_free(&t);
  return rc;
}

/* Nodes: position in [0, L], length in (0, L], section, modulus and max_stress (0: the
 * fiber's).  The segments whose centres lie on a node take its section and material;
 * a node shorter than a segment takes the segment nearest to it. */
static int nodes_apply(const fl_fiber_def *fb, double L, double max_stress, fl_shape *sh, char *err, size_t errlen)
{
  double u = unit_si[fb->table_unit], to_si[6] = {u, u, u, 1.0, 1.0, 1.0};
  const char *un = unit_name[fb->table_unit];
  table t;
  static const int cols[] = {1, 2, 3, 4, 5, 6};
  int rc = table_read(fb->nodes, "fiber.nodes", 6, cols, to_si, &t, err, errlen);
  if (rc)
    return rc;
  int *owner = malloc((size_t)(sh->n > 0 ? sh->n : 1) * sizeof *owner); /* the node each segment took, -1: none */
  if (!owner) {
    table_free(&t);
    snprintf(err, errlen, "out of memory");
    return FL_ENOMEM;
  }
  for (int i = 0; i < sh->n; i++)
    owner[i] = -1;
  rc = FL_EINPUT;
  for (int k = 0; k < t.n; k++) {
    double p = t.col[0][k], len = t.col[1][k], R = t.col[2][k], q = t.col[3][k], E = t.col[4][k], st = t.col[5][k];
    const char *what = NULL;
    char allowed[160];
    if (!(p >= 0.0 && p <= L * (1.0 + 1e-12))) {
      what = "position";
      snprintf(allowed, sizeof allowed, "a position on the fiber, in [0, %g] %s", L / u, un);
    } else if (!(len > 0.0 && len <= L)) {
      what = "length";
      snprintf(allowed, sizeof allowed, "a length in (0, %g] %s", L / u, un);
    } else if (!(R > 0.0)) {
      what = "outer radius";
      snprintf(allowed, sizeof allowed, "an outer radius above 0 (the section vanishes)");
    } else if (!(q >= 0.0 && q < 1.0)) {
      what = "inner radius ratio";
      snprintf(allowed, sizeof allowed, "a ratio in [0, 1)");
    } else if (!(E >= 0.0 && E <= 1e13)) {
      what = "Young's modulus";
      snprintf(allowed, sizeof allowed, "a modulus in (0, 1e+13] Pa, or 0 for the fiber's");
    } else if (!(st >= 0.0 && st <= 1e13)) {
      what = "max_stress";
      snprintf(allowed, sizeof allowed, "a stress in (0, 1e+13] Pa, or 0 for the fiber's");
    } else if (st > 0.0 && !(max_stress > 0.0)) {
      what = "max_stress";
      snprintf(allowed, sizeof allowed, "0, unless bond.failure.criterion is bending_stress");
    }
    if (what) {
      int length = what[0] == 'p' || what[0] == 'l' || what[0] == 'o';
      double shown = what[0] == 'p' ? p / u : what[0] == 'l' ? len / u : what[0] == 'o' ? R / u
                     : what[0] == 'i' ? q : what[0] == 'Y' ? E : st;
      snprintf(err, errlen, "%s:%d: fiber.nodes: node %d: %s %g%s%s; allowed: %s", fb->nodes, t.line[k], k + 1, what,
               shown, length ? " " : what[0] == 'i' ? "" : " ", length ? un : what[0] == 'i' ? "" : "Pa", allowed);
      goto done;
    }
    for (int j = 0; j < k; j++)
      if (fabs(t.col[0][j] - p) < 0.5 * (t.col[1][j] + len)) {
        snprintf(err, errlen, "%s:%d: fiber.nodes: node %d (%g to %g %s) overlaps node %d (line %d, %g to %g %s); "
                 "allowed: nodes that do not overlap", fb->nodes, t.line[k], k + 1, (p - 0.5 * len) / u,
                 (p + 0.5 * len) / u, un, j + 1, t.line[j], (t.col[0][j] - 0.5 * t.col[1][j]) / u,
                 (t.col[0][j] + 0.5 * t.col[1][j]) / u, un);
        goto done;
      }
    int hit = 0, near = 0;
    for (int i = 0; i < sh->n; i++)
      if (fabs(sh->s[i] - p) < fabs(sh->s[near] - p))
        near = i;
    for (int i = 0; i < sh->n; i++) {
      int mine = fabs(sh->s[i] - p) <= 0.5 * len;
      if (!mine && i == near) { /* shorter than a segment: the nearest one */
        int any = 0;
        for (int j = 0; j < sh->n; j++)
          any |= fabs(sh->s[j] - p) <= 0.5 * len;
        mine = !any && fabs(sh->s[near] - p) <= sh->h;
      }
      if (mine && owner[i] >= 0) {
        snprintf(err, errlen, "%s:%d: fiber.nodes: node %d falls on segment %d, which node %d (line %d) holds; "
                 "allowed: nodes at least a segment (%g %s) apart, or more fiber.segments", fb->nodes, t.line[k],
                 k + 1, i + 1, owner[i] + 1, t.line[owner[i]], sh->h / u, un);
        goto done;
      }
      if (mine)
        owner[i] = k;
    }
    for (int i = 0; i < sh->n; i++) {
      if (fabs(sh->s[i] - p) <= 0.5 * len) {
        hit = 1;
        sh->r_out[i] = R;
        sh->ratio[i] = q;
        if (E > 0.0)
          sh->modulus[i] = E;
        if (st > 0.0)
          sh->strength[i] = st;
      }
    }
    if (!hit && sh->n > 0 && fabs(sh->s[near] - p) <= sh->h) { /* shorter than a segment: the nearest one */
      sh->r_out[near] = R;
      sh->ratio[near] = q;
      if (E > 0.0)
        sh->modulus[near] = E;
      if (st > 0.0)
        sh->strength[near] = st;
    }
  }
  rc = FL_OK;
done:
  free(owner);
  table_free(&t);
  return rc;
}

/* ---- the shape ------------------------------------------------------------------ */

int fl_shape_nontrivial(const fl_fiber_def *fb)
{
  return fb->shape != FL_SHAPE_STRAIGHT || fb->outer_radius_end_m > 0.0 || fb->section_table[0] || fb->nodes[0];
}

void fl_shape_free(fl_shape *sh)
{
  free(sh->s);
  free(sh->x);
  free(sh->q);
  free(sh->r_out);
  free(sh->ratio);
  free(sh->modulus);
  free(sh->strength);
  memset(sh, 0, sizeof *sh);
}

/* Rotation about z taking the x axis to the unit vector (c, s, 0). */
static fl_quat turn_z(double c, double s)
{
  double a = atan2(s, c);
  return fl_q(cos(0.5 * a), 0.0, 0.0, sin(0.5 * a));
}

void fl_shape_align_ends(fl_shape *sh)
{
  fl_vec3 a = sh->x[0], b = sh->x[sh->n - 1], mid = fl_scale(fl_add(a, b), 0.5);
  fl_vec3 d = fl_sub(b, a);
  double nd = fl_norm(d);
  fl_quat back = fl_qconj(turn_z(d.x / nd, d.y / nd)); /* the chord onto +x */
  for (int i = 0; i < sh->n; i++) {
    sh->x[i] = fl_qrot(back, fl_sub(sh->x[i], mid));
    sh->q[i] = fl_qnormalize(fl_qmul(back, sh->q[i]));
    sh->x[i].z = 0.0;
  }
  sh->x[0].y = sh->x[sh->n - 1].y = 0.0; /* on the axis, not a rounding off it */
}

int fl_shape_make(const fl_fiber_def *fb, int n, double h, double max_stress, fl_shape *sh, char *err,
                  size_t errlen)
{
  curve c;
  memset(&c, 0, sizeof c);
  memset(sh, 0, sizeof *sh);
  c.kind = fb->shape;
  c.L = fb->length_m;
  int rc = FL_OK;
  if (c.kind == FL_SHAPE_POLYLINE && (rc = polyline_read(fb, &c, err, errlen)) != FL_OK) {
    curve_free(&c);
    return rc;
  }
  if (c.kind == FL_SHAPE_ARC) {
    c.rho = fb->arc_radius_m > 0.0 ? fb->arc_radius_m : c.L / fb->arc_angle_rad;
    c.phi = c.L / c.rho;
  }
  sh->n = n;
  sh->h = h;
  sh->curved = c.kind != FL_SHAPE_STRAIGHT;
  sh->varies = fb->outer_radius_end_m > 0.0 || fb->section_table[0] || fb->nodes[0];
  sh->s = malloc((size_t)n * sizeof *sh->s);
  sh->x = malloc((size_t)n * sizeof *sh->x);
  sh->q = malloc((size_t)n * sizeof *sh->q);
  sh->r_out = malloc((size_t)n * sizeof *sh->r_out);
  sh->ratio = malloc((size_t)n * sizeof *sh->ratio);
  sh->modulus = malloc((size_t)n * sizeof *sh->modulus);
  sh->strength = malloc((size_t)n * sizeof *sh->strength);
  if (!sh->s || !sh->x || !sh->q || !sh->r_out || !sh->ratio || !sh->modulus || !sh->strength) {
    rc = FL_ENOMEM;
    snprintf(err, errlen, "out of memory for %d segments", n);
    goto fail;
  }
  for (int i = 0; i < n; i++) {
    double s = 0.5 * c.L + (i - 0.5 * (n - 1)) * h;
    sh->s[i] = s;
    if (c.kind == FL_SHAPE_STRAIGHT) { /* as the straight builder always placed them */
      sh->x[i] = fl_v3((i - 0.5 * (n - 1)) * h, 0, 0);
      sh->q[i] = fl_qid();
    } else {
      sh->x[i] = curve_at(&c, s);
      fl_vec3 d = fl_sub(curve_at(&c, s + 0.5 * h), curve_at(&c, s - 0.5 * h));
      double nd = fl_norm(d);
      sh->q[i] = turn_z(d.x / nd, d.y / nd);
    }
    double R = fb->outer_radius_m;
    if (fb->outer_radius_end_m > 0.0)
      R += (fb->outer_radius_end_m - R) * s / c.L;
    sh->r_out[i] = R;
    sh->ratio[i] = fb->inner_radius_ratio;
    sh->modulus[i] = 0.0; /* the fiber's */
    sh->strength[i] = 0.0; /* the fiber's */
  }
  if (fb->section_table[0] && (rc = sections_from_table(fb, sh, err, errlen)) != FL_OK)
    goto fail;
  if (fb->nodes[0] && (rc = nodes_apply(fb, c.L, max_stress, sh, err, errlen)) != FL_OK)
    goto fail;
  /* kinks: the rest angle between neighbours, at most FL_SHAPE_MAX_TURN and no tighter
   * than a bend of the outer radius (h / angle >= R) */
  for (int i = 0; i + 1 < n && sh->curved; i++) {
    fl_vec3 a = fl_qrot(sh->q[i], fl_v3(1, 0, 0)), b = fl_qrot(sh->q[i + 1], fl_v3(1, 0, 0));
    double turn = fabs(atan2(fl_cross(a, b).z, fl_dot(a, b)));
    double R = fmax(sh->r_out[i], sh->r_out[i + 1]), lim = fmin(FL_SHAPE_MAX_TURN, h / R);
    if (turn > lim * (1.0 + 1e-12)) {
      rc = FL_EINPUT;
      if (c.kind == FL_SHAPE_POLYLINE)
        snprintf(err, errlen,
                 "%s:%d: fiber.polyline: a kink of %.3g deg between segments %d and %d (near this point); allowed: "
                 "at most %.3g deg between two segments of %.3g m (45 deg, and no bend tighter than the outer "
                 "radius); round the corner with more points, or use fewer, longer segments",
                 fb->polyline, curve_line(&c, sh->s[i] + 0.5 * h), turn * 180.0 / FL_PI, i + 1, i + 2,
                 lim * 180.0 / FL_PI, h);
      else
        snprintf(err, errlen,
                 "fiber.arc_radius: the arc turns %.3g deg between two segments of %.3g m; allowed: at most %.3g deg "
                 "(45 deg, and an arc radius of at least the outer radius): a larger radius or more segments",
                 turn * 180.0 / FL_PI, h, lim * 180.0 / FL_PI);
      goto fail;
    }
  }
  curve_free(&c);
  return FL_OK;
fail:
  curve_free(&c);
  fl_shape_free(sh);
  return rc;
}

fl_vec3 fl_shape_tool_place(const fl_shape *sh, const double *radius, double x, double tool_radius, int side)
{
  /* Each segment is a sphero-cylinder: the tool's centre at abscissa x touches it on the
   * boundary of the segment's axis offset by D = r + tool radius, which, seen from one
   * side, is either a point beside the cylinder part or one over a cap.  The tool meets
   * first the segment whose touching point lies farthest toward that side. */
  double best = 0.0;
  int found = 0;
  for (int i = 0; i < sh->n; i++) {
    fl_vec3 t = fl_qrot(sh->q[i], fl_v3(1, 0, 0)), nn = fl_v3(-t.y, t.x, 0.0);
    double D = radius[i] + tool_radius, hl = 0.5 * sh->h, y[3];
    int m = 0;
    if (nn.y * side < 0.0)
      nn = fl_neg(nn);
    if (fabs(t.x) > 1e-12) { /* beside the cylinder part */
      double u = (x - sh->x[i].x - D * nn.x) / t.x;
      if (fabs(u) <= hl)
        y[m++] = sh->x[i].y + u * t.y + D * nn.y;
    }
    for (int e = -1; e <= 1; e += 2) { /* over a cap */
      fl_vec3 E = fl_add(sh->x[i], fl_scale(t, e * hl));
      double dx = x - E.x;
      if (fabs(dx) <= D)
        y[m++] = E.y + side * sqrt(D * D - dx * dx);
    }
    for (int k = 0; k < m; k++)
      if (!found || side * (y[k] - best) > 0.0) {
        best = y[k];
        found = 1;
      }
  }
  return fl_v3(x, best, 0.0);
}
