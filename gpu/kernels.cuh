/* kernels.cuh: the CUDA engine's kernels (engine.cu includes it once, where the
 * engine's types are defined; one translation unit, for nvcc and for the tests' host
 * shim alike): what one thread does, as a function of its index, and the thin
 * __global__ wrappers the host side launches. */
/* ---- kernels: one index each ------------------------------------------------------ */

/* Body k of a set. */
FL_HD static inline fl_body body_of(const body_set &b, size_t k)
{
  fl_body r = {b.x[k], b.q[k], b.v[k], b.w[k]};
  return r;
}

/* The bond's bodies in specimen s, before the step. */
FL_HD static inline void bond_bodies(const fl_gpu_dev &d, int s, int b, fl_body *bi, fl_body *bj)
{
  size_t base = (size_t)s * d.nbody;
  int i = d.chain ? b : d.b1[b], j = d.chain ? b + 1 : d.b2[b];
  *bi = body_of(d.now, base + i);
  *bj = body_of(d.now, base + j);
}

/* Store a bond's loads in the rows (ld.force, torque1, torque2). */
FL_HD static inline void put_loads(const fl_gpu_dev &d, int s, int b, fl_vec3 f, fl_vec3 t1, fl_vec3 t2)
{
  double *row = d.load + (size_t)s * LOAD_ROWS * d.nbond + b;
  size_t n = (size_t)d.nbond;
  row[0] = f.x, row[n] = f.y, row[2 * n] = f.z;
  row[3 * n] = t1.x, row[4 * n] = t1.y, row[5 * n] = t1.z;
  row[6 * n] = t2.x, row[7 * n] = t2.y, row[8 * n] = t2.z;
}

/* Store a damping state in the rows from (row: the bond's first). */
FL_HD static inline void put_damping(double *row, size_t n, fl_vec3 fd, fl_vec3 td)
{
  row[FL_STATE_FD * n] = fd.x, row[(FL_STATE_FD + 1) * n] = fd.y, row[(FL_STATE_FD + 2) * n] = fd.z;
  row[FL_STATE_TD * n] = td.x, row[(FL_STATE_TD + 1) * n] = td.y, row[(FL_STATE_TD + 2) * n] = td.z;
}

/* Bond b of specimen s (whose specimen the common law may serve) through the common
 * law, as the CPU engine's vectorised pass takes it (engine.c), from the state before
 * the step; writes nothing.  ld->ok is 0 where the law does not serve it (the bond is
 * not live, its definition or its angles need the general law). */
FL_HD static inline void bond_common(const fl_gpu_dev &d, int s, int b, fl_bond_inline_loads *ld)
{
  size_t n = (size_t)d.nbond;
  const double *row = d.srow + (size_t)s * FL_STATE_ROWS * n + b;
  const double *def = d.def + (d.def_shared ? 0 : (size_t)s * FL_DEF_ROWS * n);
  size_t c = d.def_uniform ? 0 : (size_t)b; /* the column of q0 and the stiffnesses */
  if (row[FL_STATE_LIVE * n] == 0.0 || def[FL_DEF_OK * n + c] == 0.0) {
    ld->ok = 0;
    return;
  }
  fl_bond_inline_def bd;
  bd.r1 = fl_v3(def[FL_DEF_R1 * n + b], def[(FL_DEF_R1 + 1) * n + b], def[(FL_DEF_R1 + 2) * n + b]);
  bd.r2 = fl_v3(def[FL_DEF_R2 * n + b], def[(FL_DEF_R2 + 1) * n + b], def[(FL_DEF_R2 + 2) * n + b]);
  bd.q0 = fl_q(def[FL_DEF_Q0 * n + c], def[(FL_DEF_Q0 + 1) * n + c], def[(FL_DEF_Q0 + 2) * n + c],
               def[(FL_DEF_Q0 + 3) * n + c]);
  bd.ks1 = def[FL_DEF_KS1 * n + c];
  bd.kd1 = def[FL_DEF_KD1 * n + c];
  bd.ks2 = def[FL_DEF_KS2 * n + c];
  bd.kd2 = def[FL_DEF_KD2 * n + c];
  bd.kt_eff = def[FL_DEF_KT * n + c];
  bd.kb_eff = def[FL_DEF_KB * n + c];
  fl_body bi, bj;
  bond_bodies(d, s, b, &bi, &bj);
  fl_vec3 fd = fl_v3(row[FL_STATE_FD * n], row[(FL_STATE_FD + 1) * n], row[(FL_STATE_FD + 2) * n]);
  fl_vec3 td = fl_v3(row[FL_STATE_TD * n], row[(FL_STATE_TD + 1) * n], row[(FL_STATE_TD + 2) * n]);
  *ld = fl_bond_eval_inline(bd, d.damping[s], bi, bj, fd, td);
}

/* Body i's bonds, m from *first to *last: bond bond_at(m), the body its body 1 when
 * side_one(m), in ascending bond order (a chain's body i: bond i - 1 as its body 2,
 * then bond i as its body 1). */
FL_HD static inline void bond_range(const fl_gpu_dev &d, int i, int *first, int *last)
{
  *first = d.chain ? (i > 0 ? 2 * i - 1 : 0) : d.adj_start[i];
  *last = d.chain ? (i < d.nbond ? 2 * i + 1 : 2 * i) : d.adj_start[i + 1];
}
FL_HD static inline int bond_at(const fl_gpu_dev &d, int m) { return d.chain ? m / 2 : d.adj_bond[m]; }
FL_HD static inline int side_one(const fl_gpu_dev &d, int m) { return d.chain ? m % 2 == 0 : d.adj_side[m] == 1; }

/* Add a bond's loads on one of its bodies to f and t, as the CPU engine's body_gather. */
FL_HD static inline void add_loads(int one, fl_vec3 fb, fl_vec3 t1, fl_vec3 t2, fl_vec3 *f, fl_vec3 *t)
{
  *f = one ? fl_add(*f, fb) : fl_sub(*f, fb);
  *t = fl_add(*t, one ? t1 : t2);
}

/* Bond idx (bond b of specimen s) through fl_bond_eval with its whole state st (the
 * damping state from the rows), before the step, as the CPU engine's bond_eval_rows. */
FL_HD static inline void bond_whole(const fl_gpu_dev &d, size_t idx, int s, int b, fl_bond_state *st,
                                    fl_bond_loads *ld)
{
  size_t n = (size_t)d.nbond;
  const double *row = d.srow + (size_t)s * FL_STATE_ROWS * n + b;
  fl_body bi, bj;
  bond_bodies(d, s, b, &bi, &bj);
  const fl_bond_limits *lim = &d.limits[s];
  if (lim->criterion == FL_CRIT_NONE && lim->buckling.type == FL_BUCKLING_NONE)
    lim = NULL;
  st->fd = fl_v3(row[FL_STATE_FD * n], row[(FL_STATE_FD + 1) * n], row[(FL_STATE_FD + 2) * n]);
  st->td = fl_v3(row[FL_STATE_TD * n], row[(FL_STATE_TD + 1) * n], row[(FL_STATE_TD + 2) * n]);
  fl_bond_eval(&d.bond[d.def_shared ? (size_t)b : idx], &d.damping[s], lim, &bi, &bj, st, ld);
}

/* Bond idx through fl_bond_eval with its whole state (bond_whole; the damping state
 * back into the rows, with the live flag).  Returns the bond's new breaks and
 * buckles. */
FL_HD static inline int bond_general_at(const fl_gpu_dev &d, size_t idx)
{
  int s = (int)(idx / d.nbond), b = (int)(idx - (size_t)s * d.nbond);
  size_t n = (size_t)d.nbond, at = (size_t)s * FL_STATE_ROWS * n + b;
  const double *row = d.srow + at;
  fl_bond_state st = d.st[idx];
  int before = st.broken + st.buckled;
  fl_bond_loads ld;
  bond_whole(d, idx, s, b, &st, &ld);
  put_damping(d.srow_next + at, n, st.fd, st.td);
  double live = (st.broken | st.yielded | st.buckled) == 0 ? 1.0 : 0.0;
  if (live != row[FL_STATE_LIVE * n]) /* in both sets of rows, which the steps take in turn */
    d.srow[at + FL_STATE_LIVE * n] = d.srow_next[at + FL_STATE_LIVE * n] = live;
  st.fd = st.td = fl_v3(0.0, 0.0, 0.0);
  d.st[idx] = st;
  put_loads(d, s, b, ld.force, ld.torque1, ld.torque2);
  return st.broken + st.buckled - before;
}

/* The bonds the common law did not serve (every bond of a specimen it cannot serve):
 * the general law, its loads into the rows for k_bodies. */
__global__ void k_bonds_general(fl_gpu_dev d)
{
  size_t idx = thread_index();
  if (idx >= (size_t)d.nspec * d.nbond)
    return;
  int s = (int)(idx / d.nbond);
  if (d.common[s]) {
    if (!d.bond_redo[idx])
      return;
    d.bond_redo[idx] = 0;
  }
  int events = bond_general_at(d, idx);
  if (events) {
    atomicAdd(&d.nbroken[s], events); /* integers: order-independent */
    atomicAdd(&d.news.events[s], events);
  }
}

/* The bits of a double, which for nonnegative ones order as the double does: their
 * largest by an integer maximum, which does not depend on the order threads come in. */
FL_HD static inline unsigned long long order_bits(double x)
{
  unsigned long long u;
  memcpy(&u, &x, sizeof u);
  return u;
}

/* What one body's step leaves for the counts of its specimen. */
struct body_news {
  int ok;        /* 0: a free body left the finite numbers */
  int outside;   /* 1: the body ends the step farther than the box from the origin */
  unsigned tools; /* bit m: the body carries a load of tool m */
  double ov;     /* its largest tool overlap, m (0: none) */
};

/* The point load pl on body k (body i, pl's) before the step, added to f and t, as
 * the CPU engine's fl_loads_gather; returns its value along its direction, N. */
FL_HD static inline double point_load(const fl_gpu_dev &d, size_t k, int i, const fl_point_load &pl, fl_vec3 *f,
                                      fl_vec3 *t)
{
  fl_vec3 arm, p_ref = fl_add(d.x_ref[i], fl_qrot(d.q_ref[i], pl.arm));
  double load = fl_point_load_value(&pl, d.now.x[k], d.now.q[k], p_ref, &arm);
  fl_vec3 fp = fl_scale(pl.dir, load);
  *f = fl_add(*f, fp);
  *t = fl_add(*t, fl_cross(arm, fp));
  return load;
}

/* Body k (body i of specimen s) with its bonds' loads f and t: its tool contacts and
 * the point load as the CPU engine's body_gather, and its step into d.next. */
FL_HD static inline body_news body_step(const fl_gpu_dev &d, size_t k, int s, int i, fl_vec3 f, fl_vec3 t,
                                        const fl_step_args &a)
{
  body_news news = {1, 0, 0u, 0.0};
  const body_set &o = d.now, &nx = d.next;
  unsigned char motion = d.motion[i];
  if (motion == FL_FREE && d.ntool > 0) {
    fl_vec3 *share = d.news.tshare + k * d.ntool;
    fl_contact_tools(d.law + (size_t)s * d.ntool, a.tool, d.ntool, o.x[k], o.q[k], o.v[k], o.w[k], d.hl[i],
                     d.radius[i], a.dt, d.xi + k * d.ntool, 1, &f, &t, share, &news.ov);
    for (int m = 0; m < d.ntool; m++) /* a body that carries tool m's load (else it is a zero) */
      if (share[m].x != 0.0 || share[m].y != 0.0 || share[m].z != 0.0)
        news.tools |= 1u << m;
  }
  if (i == a.pl.body) /* the cantilever's tip load */
    d.news.pload_force[s] = point_load(d, k, i, a.pl, &f, &t);
  fl_vec3 x = o.x[k];
  if (motion == FL_FREE) {
    /* the CPU engine's vectorised step, and where it does not serve the general one */
    fl_body_quotients kq;
    size_t nb = (size_t)d.nbody, c = d.quot_uniform ? 0 : (size_t)i;
    kq.dtm = d.quot[FL_BODY_DTM * nb + c];
    kq.dti = d.quot[FL_BODY_DTI * nb + c];
    kq.rit = d.quot[FL_BODY_RIT * nb + c];
    kq.di = d.quot[FL_BODY_DI * nb + c];
    kq.dtdi = d.quot[FL_BODY_DTDI * nb + c];
    fl_vec3 v = o.v[k], L = o.L[k], w;
    fl_quat q = o.q[k];
    fl_free_step r = fl_integrate_free_inline(x, v, q, L, f, t, a.g, kq, a.dt);
    if (r.ok) {
      x = r.x, v = r.v, q = r.q, L = r.L, w = r.w;
    } else {
      w = o.w[k];
      news.ok = fl_integrate_free(&x, &v, &q, &L, &w, f, t, a.g, d.mass[i], d.ia[i], d.it[i], a.dt);
    }
    nx.x[k] = x, nx.v[k] = v, nx.q[k] = q, nx.L[k] = L, nx.w[k] = w;
  } else if (motion == FL_GRIP_MOVING) {
    int j = d.grip_slot[i];
    d.news.grip_f[(size_t)s * d.ngrip + j] = f;
    d.news.grip_t[(size_t)s * d.ngrip + j] = fl_add(t, fl_cross(x, f)); /* before the grip moves */
    fl_integrate_grip(&nx.x[k], &nx.v[k], &nx.q[k], &nx.L[k], &nx.w[k], d.x_ref[i], d.q_ref[i], a.disp, a.qg, a.wg,
                      a.vg);
    x = nx.x[k];
  } /* a body held still is the same in both sets */
  news.outside = a.box > 0.0 && fl_norm(x) > a.box;
  return news;
}

/* What body i of specimen s leaves for its specimen's counts (atomics on integers only:
 * the result does not depend on the order threads come in). */
__device__ static inline void body_report(const fl_gpu_dev &d, int s, int i, const body_news &news)
{
  const step_news &w = d.news;
  if (!news.ok)
    atomicMin(&w.bad[s], i);
  if (news.outside)
    atomicMin(&w.out[s], i);
  for (int m = 0; m < d.ntool; m++)
    if (news.tools & 1u << m) {
      atomicMin(&w.touch_lo[(size_t)s * d.ntool + m], i);
      atomicMax(&w.touch_hi[(size_t)s * d.ntool + m], i);
    }
  if (news.ov > 0.0) /* a nonnegative double's bits order as it does */
    atomicMax((unsigned long long *)&d.overlap[s], order_bits(news.ov));
}

/* Body k's whole step where the common law may serve its specimen: each of its bonds
 * through the common law from the state before the step (a bond between two bodies is
 * evaluated by both: the loads do not make the round trip through memory), the
 * damping state of the bonds it is body 1 of into d.srow_next, and its step.  Where
 * the law does not serve one of its bonds, the body is left to k_bonds_general (that
 * bond, marked by its body 1) and k_bodies (the body, marked), with the loads of the
 * bonds it did serve in the rows.  Returns 0 then. */
__device__ static inline int step_at(const fl_gpu_dev &d, size_t k, const fl_step_args &a)
{
  int s = (int)(k / d.nbody), i = (int)(k - (size_t)s * d.nbody);
  if (!d.common[s])
    return 0;
  size_t n = (size_t)d.nbond;
  fl_vec3 f = fl_v3(0.0, 0.0, 0.0), t = fl_v3(0.0, 0.0, 0.0);
  int first, last, all = 1;
  bond_range(d, i, &first, &last);
  for (int m = first; m < last; m++) {
    int b = bond_at(d, m), one = side_one(d, m);
    fl_bond_inline_loads ld;
    bond_common(d, s, b, &ld);
    if (!ld.ok) {
      all = 0;
      if (one)
        d.bond_redo[(size_t)s * n + b] = 1;
      continue;
    }
    if (one)
      put_damping(d.srow_next + (size_t)s * FL_STATE_ROWS * n + b, n, ld.fd, ld.td);
    add_loads(one, ld.force, ld.torque1, ld.torque2, &f, &t);
  }
  if (!all) { /* rare: k_bodies gathers the loads of every bond of this body */
    d.body_redo[k] = 1;
    for (int m = first; m < last; m++) {
      int b = bond_at(d, m);
      fl_bond_inline_loads ld;
      bond_common(d, s, b, &ld);
      if (ld.ok)
        put_loads(d, s, b, ld.force, ld.torque1, ld.torque2);
    }
    return 0;
  }
  body_report(d, s, i, body_step(d, k, s, i, f, t, a));
  return 1;
}

/* Registers (ptxas, sm_90): left free it takes 202, two blocks of 128 threads an SM;
 * held to 200 it takes 199 without spilling, ten warps an SM (five blocks of 64
 * threads); held to 184 it would spill 44 bytes a thread */
#define K_STEP_THREADS 64
__global__ void __maxnreg__(200) k_step(fl_gpu_dev d, fl_step_args a)
{
  size_t k = thread_index();
  if (k < (size_t)d.nspec * d.nbody)
    step_at(d, k, a);
}

/* Body i of specimen s: its bonds' loads from the rows, summed in ascending bond order
 * into f and t. */
FL_HD static inline void gather_loads(const fl_gpu_dev &d, int s, int i, fl_vec3 *f, fl_vec3 *t)
{
  size_t n = (size_t)d.nbond;
  const double *row = d.load + (size_t)s * LOAD_ROWS * n;
  *f = fl_v3(0.0, 0.0, 0.0), *t = fl_v3(0.0, 0.0, 0.0);
  int first, last;
  bond_range(d, i, &first, &last);
  for (int m = first; m < last; m++) {
    const double *r = row + bond_at(d, m);
    add_loads(side_one(d, m), fl_v3(r[0], r[n], r[2 * n]), fl_v3(r[3 * n], r[4 * n], r[5 * n]),
              fl_v3(r[6 * n], r[7 * n], r[8 * n]), f, t);
  }
}

/* Body k where k_step left it (or its specimen): its bonds' loads gathered from the
 * rows in ascending bond order (no floating-point atomics: runs repeat bit for bit),
 * and its step. */
__device__ static inline void body_at(const fl_gpu_dev &d, size_t k, const fl_step_args &a)
{
  int s = (int)(k / d.nbody), i = (int)(k - (size_t)s * d.nbody);
  if (d.common[s]) {
    if (!d.body_redo[k])
      return;
    d.body_redo[k] = 0;
  }
  fl_vec3 f, t;
  gather_loads(d, s, i, &f, &t);
  body_report(d, s, i, body_step(d, k, s, i, f, t, a));
}

/* Specimen s after step w.n of the watch (w.tm, w.pos), from what that step's bodies
 * left in the news and the state after the step (d.now): the first failure (a body
 * that left the finite numbers, before one outside the box, as the CPU solver checks
 * them), then the loads the test measures, summed in body order as the CPU engine sums
 * them, and the explicit solver's watch (track.h): the peak, the first touch, the
 * first event.  after: the bonds broken in the step after it, which the count already
 * holds (NULL: none yet).  The news are made ready for the step after next. */
FL_HD static inline void watch_at(const fl_gpu_dev &d, int s, const watch_args &w, const step_news &nw,
                                  const int *after)
{
  if (d.bad_step[s] < 0 && (nw.bad[s] < d.nbody || nw.out[s] < d.nbody)) {
    d.bad_step[s] = w.n;
    d.bad_box[s] = nw.bad[s] == d.nbody;
    d.bad_body[s] = nw.bad[s] < d.nbody ? nw.bad[s] : nw.out[s];
  }
  nw.bad[s] = nw.out[s] = d.nbody;
  fl_vec3 tf[FL_MAX_TOOLS];
  for (int m = 0; m < d.ntool; m++) {
    size_t at = (size_t)s * d.ntool + m;
    tf[m] = fl_v3(0.0, 0.0, 0.0);
    for (int i = nw.touch_lo[at]; i <= nw.touch_hi[at]; i++)
      if (d.motion[i] == FL_FREE)
        tf[m] = fl_add(tf[m], nw.tshare[((size_t)s * d.nbody + i) * d.ntool + m]);
    nw.touch_lo[at] = d.nbody, nw.touch_hi[at] = -1;
  }
  fl_vec3 gf = fl_v3(0.0, 0.0, 0.0), gt = fl_v3(0.0, 0.0, 0.0);
  for (int j = 0; j < d.ngrip; j++) {
    gf = fl_add(gf, nw.grip_f[(size_t)s * d.ngrip + j]);
    gt = fl_add(gt, nw.grip_t[(size_t)s * d.ngrip + j]);
  }
  int broken = d.nbroken[s] - (after ? after[s] : 0);
  nw.events[s] = 0;
  double y = fl_track_load(w.kind, tf, d.ntool, gf, gt, nw.pload_force[s]);
  fl_track *tr = &d.track[s];
  if (!fl_track_step(tr, fl_test_bends(w.kind), y, broken, w.tm, w.pos, w.n))
    return;
  if (w.kind == FL_TEST_CANTILEVER) { /* the tip's displacement after the step (fl_measure_x) */
    size_t k = (size_t)s * d.nbody + w.pl.body;
    fl_vec3 arm, p_ref = fl_add(d.x_ref[w.pl.body], fl_qrot(d.q_ref[w.pl.body], w.pl.arm));
    tr->x_at_peak = fl_point_load_travel(&w.pl, d.now.x[k], d.now.q[k], p_ref, &arm);
  } else {
    tr->x_at_peak = fl_track_travel(tr->touch, w.pos);
  }
}

/* The marked bodies, and after them (watch.n >= 0) one thread per specimen for the
 * watch of the step before: the state after that step is this step's d.now, its news
 * are d.news_before. */
__global__ void k_bodies(fl_gpu_dev d, fl_step_args a, watch_args watch)
{
  size_t k = thread_index(), nb = (size_t)d.nspec * d.nbody;
  if (k < nb)
    body_at(d, k, a);
  else if (watch.n >= 0 && k - nb < (size_t)d.nspec)
    watch_at(d, (int)(k - nb), watch, d.news_before, d.news.events);
}

/* The watch of the last step, where no step follows yet: its news are d.news_before. */
__global__ void k_watch(fl_gpu_dev d, watch_args watch)
{
  size_t s = thread_index();
  if (s < (size_t)d.nspec)
    watch_at(d, (int)s, watch, d.news_before, NULL);
}

/* ---- an output row: the loads without moving the state on (fl_system_loads, advance 0) */

/* Bond idx through fl_bond_eval on a copy of its whole state, its loads and energy into
 * the rows. */
__global__ void k_row_bonds(fl_gpu_dev d)
{
  size_t idx = thread_index();
  if (idx >= (size_t)d.nspec * d.nbond)
    return;
  int s = (int)(idx / d.nbond), b = (int)(idx - (size_t)s * d.nbond);
  fl_bond_state st = d.st[idx]; /* a copy: the row does not move the state on */
  fl_bond_loads ld;
  bond_whole(d, idx, s, b, &st, &ld);
  put_loads(d, s, b, ld.force, ld.torque1, ld.torque2);
  d.load[((size_t)s * LOAD_ROWS + FL_LOAD_E) * d.nbond + b] = ld.energy;
}

/* Body k: its bonds' loads, its tool contacts (their shares, the history left as it
 * is) and the point load, as fl_loads_gather gathers them, into the row's arrays. */
FL_HD static inline void row_body_at(const fl_gpu_dev &d, size_t k, const fl_step_args &a)
{
  int s = (int)(k / d.nbody), i = (int)(k - (size_t)s * d.nbody);
  fl_vec3 f, t;
  gather_loads(d, s, i, &f, &t);
  if (d.ntool > 0 && d.motion[i] == FL_FREE) {
    double ov = 0.0; /* kept only by a step */
    fl_contact_tools(d.law + (size_t)s * d.ntool, a.tool, d.ntool, d.now.x[k], d.now.q[k], d.now.v[k], d.now.w[k],
                     d.hl[i], d.radius[i], a.dt, d.xi + k * d.ntool, 0, &f, &t, d.row_share + k * d.ntool, &ov);
  }
  if (i == a.pl.body)
    d.figs[s].pload = point_load(d, k, i, a.pl, &f, &t);
  d.row_f[k] = f;
  d.row_t[k] = t;
}
__global__ void k_row_bodies(fl_gpu_dev d, fl_step_args a)
{
  size_t k = thread_index();
  if (k < (size_t)d.nspec * d.nbody)
    row_body_at(d, k, a);
}

/* Specimen s's row figures from its bonds' and bodies' row values, each sum in the
 * order the CPU engine takes (fl_loads_pass, fl_system_kinetic, fl_system_count): one
 * thread a specimen, so that the sums keep the host's bits. */
FL_HD static inline void row_specimen_at(const fl_gpu_dev &d, int s)
{
  size_t n = (size_t)d.nbond, base = (size_t)s * d.nbody;
  row_figs &r = d.figs[s];
  const double *e = d.load + ((size_t)s * LOAD_ROWS + FL_LOAD_E) * n;
  const fl_bond_state *st = d.st + (size_t)s * n;
  double energy = 0.0;
  int nb = 0, ny = 0;
  for (size_t b = 0; b < n; b++) {
    energy += e[b];
    nb += st[b].broken;
    ny += st[b].yielded || st[b].buckled;
  }
  r.energy = energy, r.broken = nb, r.yielded = ny;
  for (int m = 0; m < d.ntool; m++)
    r.tool[m] = fl_v3(0.0, 0.0, 0.0);
  fl_vec3 gf = fl_v3(0.0, 0.0, 0.0), gt = fl_v3(0.0, 0.0, 0.0);
  double kin = 0.0;
  for (int i = 0; i < d.nbody; i++) {
    size_t k = base + i;
    if (d.motion[i] == FL_FREE) {
      for (int m = 0; m < d.ntool; m++)
        r.tool[m] = fl_add(r.tool[m], d.row_share[k * d.ntool + m]);
      const fl_vec3 v = d.now.v[k];
      kin += 0.5 * d.mass[i] * fl_dot(v, v) + 0.5 * fl_dot(d.now.w[k], d.now.L[k]);
    } else if (d.motion[i] == FL_GRIP_MOVING) {
      gf = fl_add(gf, d.row_f[k]);
      gt = fl_add(gt, fl_add(d.row_t[k], fl_cross(d.now.x[k], d.row_f[k])));
    }
  }
  r.grip_f = gf, r.grip_t = gt, r.kinetic = kin;
  for (int j = 0; j < d.nheld; j++) {
    size_t at = ((size_t)s * d.nheld + j) * 2;
    d.held_ft[at] = d.row_f[base + d.held[j]];
    d.held_ft[at + 1] = d.row_t[base + d.held[j]];
  }
  r.overlap = d.overlap[s];
  r.nbroken = d.nbroken[s];
}
__global__ void k_row_specimens(fl_gpu_dev d)
{
  size_t s = thread_index();
  if (s < (size_t)d.nspec)
    row_specimen_at(d, (int)s);
}

/* Bond i of fl_gpu_eval_bonds' arrays. */
FL_HD static inline void eval_bond_at(int i, const fl_bond *bond, const fl_bond_damping *dm,
                                      const fl_bond_limits *lim, const fl_body *b1, const fl_body *b2,
                                      fl_bond_state *st, fl_bond_loads *out)
{
  const fl_bond_limits *l = &lim[i];
  if (l->criterion == FL_CRIT_NONE && l->buckling.type == FL_BUCKLING_NONE)
    l = NULL;
  fl_bond_eval(&bond[i], &dm[i], l, &b1[i], &b2[i], &st[i], &out[i]);
}

__global__ void k_eval_bonds(int n, const fl_bond *bond, const fl_bond_damping *dm, const fl_bond_limits *lim,
                             const fl_body *b1, const fl_body *b2, fl_bond_state *st, fl_bond_loads *out)
{
  size_t i = thread_index();
  if (i < (size_t)n)
    eval_bond_at((int)i, bond, dm, lim, b1, b2, st, out);
}
