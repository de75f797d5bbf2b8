/* build.c: a batch of specimens from their experiments: segments, sections, bonds in
 * their rest shape with their stiffnesses and limits, tools and grips placed on them,
 * strengths drawn (fiberlab-model(7)); the solvers only advance what this builds. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "fl_defs.h"
#include "rng.h"
#include "run.h"
#include "shape.h"
#include "test_kind.h"

/* One side's stiffness: section sec, length d, the fiber's moduli times mod (a node's
 * modulus over the fiber's; 1 elsewhere). */
static fl_side_stiffness side_stiffness(const fl_experiment *exp, const fl_section *sec, double d, double mod)
{
  fl_side_stiffness s;
  double E = mod * exp->fiber.youngs_modulus, G = mod * exp->fiber.shear_modulus;
  s.k_axial = exp->bond.force_stiffness_scale * E * sec->area / d;
  s.k_shear = exp->bond.force_stiffness_scale * G * sec->area / d;
  s.k_twist = exp->bond.torque_stiffness_scale * G * sec->polar / d;
  s.k_bend = exp->bond.torque_stiffness_scale * E * sec->inertia / d;
  return s;
}

/* Limits of one specimen's bonds: the same section on both sides of every bond. */
static fl_bond_limits bond_limits(const fl_experiment *exp, const fl_section *sec)
{
  const fl_failure_def *fd = &exp->bond.failure;
  double R = exp->fiber.outer_radius_m, Ri = exp->fiber.inner_radius_ratio * R;
  fl_bond_limits lim;
  memset(&lim, 0, sizeof lim);
  lim.criterion = (int)fd->criterion;
  lim.post = (int)fd->post_failure;
  lim.ignore_compression = fd->ignore_compression;
  lim.max_stress = fd->max_stress;
  lim.max_angle = fd->max_bending_angle;
  lim.sec1.radius = fl_fiber_outer_fibre(&exp->fiber); /* stresses at the outer fibre: R, or an ellipse's a */
  lim.sec1.area = sec->area;
  lim.sec1.inertia = sec->inertia;
  lim.sec1.polar = sec->polar;
  lim.sec1.kshape = (Ri * Ri + Ri * R + R * R) / (R * R + Ri * Ri);
  lim.sec2 = lim.sec1;
  /* A broken bond's segments touch again, once separated, as two Hertz spheres of the
   * fiber's material (fiberlab-model(7), Beyond the limit). */
  if (lim.criterion != FL_CRIT_NONE && lim.post == FL_POST_TOTAL_BREAKAGE) {
    double E = exp->fiber.youngs_modulus, G = exp->fiber.shear_modulus, nu = E / (2.0 * G) - 1.0;
    nu = nu > 0.49 ? 0.49 : (nu < -0.99 ? -0.99 : nu);
    double h = exp->fiber.length_m / exp->fiber.segments, e = exp->test.restitution;
    lim.pair_law.e_star = E / (2.0 * (1.0 - nu * nu));
    lim.pair_law.g_star = E / (4.0 * (2.0 - nu) * (1.0 + nu));
    lim.pair_law.r_star = 0.5 * R;
    lim.pair_law.m_star = 0.5 * exp->fiber.density * sec->area * h;
    lim.pair_law.beta = e >= 1.0 ? 0.0 : log(e) / sqrt(log(e) * log(e) + FL_PI * FL_PI);
    lim.pair_law.mu = exp->test.friction;
    lim.hl1 = lim.hl2 = 0.5 * h;
    lim.r1 = lim.r2 = fl_fiber_outer_fibre(&exp->fiber);
  }
  /* The buckling envelope of every bond, from its own bending stiffness. */
  const fl_buckling_def *bk = &exp->bond.buckling;
  if (bk->type != FL_BUCKLING_NONE) {
    double ei = exp->bond.torque_stiffness_scale * exp->fiber.youngs_modulus * sec->inertia;
    double h = exp->fiber.length_m / exp->fiber.segments;
    lim.buckling = fl_buckling_make((int)bk->type, bk->sample_length, bk->max_force, bk->min_force,
                                    bk->displacement_at_min_force, bk->slope_after_min_force, ei / h, ei);
  }
  return lim;
}

/* The tests a batch shares: the same but for the tools' linear stiffness and Hertz's
 * contact modulus (each specimen's contact laws are its own) and the machine's
 * compliance (applied to each specimen's rows, fl_measure_compliance). */
static int same_test(const fl_test_def *a, const fl_test_def *b)
{
  fl_test_def ta, tb;
  memcpy(&ta, a, sizeof ta); /* with the padding, which memcmp reads */
  memcpy(&tb, b, sizeof tb);
  ta.contact_stiffness = tb.contact_stiffness = 0.0;
  ta.contact_modulus = tb.contact_modulus = 0.0;
  ta.compliance = tb.compliance = 0.0;
  return memcmp(&ta, &tb, sizeof ta) == 0;
}

int fl_experiment_batchable(const fl_experiment *a, const fl_experiment *b)
{
  const fl_fiber_def *fa = &a->fiber, *fb = &b->fiber;
  return fa->length_m == fb->length_m && fa->outer_radius_m == fb->outer_radius_m && fa->shape == fb->shape &&
         fa->arc_radius_m == fb->arc_radius_m && fa->arc_angle_rad == fb->arc_angle_rad &&
         fa->outer_radius_end_m == fb->outer_radius_end_m && fa->table_unit == fb->table_unit &&
         strcmp(fa->polyline, fb->polyline) == 0 && strcmp(fa->section_table, fb->section_table) == 0 &&
         strcmp(fa->nodes, fb->nodes) == 0 &&
         fa->inner_radius_ratio == fb->inner_radius_ratio && fl_fiber_outer_fibre(fa) == fl_fiber_outer_fibre(fb) &&
         fa->segments == fb->segments &&
         fa->density == fb->density && same_test(&a->test, &b->test) &&
         a->sim.solver == b->sim.solver && a->sim.time_step == b->sim.time_step && a->sim.safety == b->sim.safety &&
         a->sim.output_points == b->sim.output_points && a->sim.force_time_step == b->sim.force_time_step &&
         a->sim.viscoelastic == b->sim.viscoelastic;
}

int fl_build_block(const fl_experiment *lead, const fl_experiment *const *exps, int nspec, int first,
                   fl_system *sys, fl_build_info *info)
{
  const fl_experiment *exp = lead; /* geometry, test and simulation */
  const fl_fiber_def *fb = &exp->fiber;
  const fl_test_type *type = fl_test_type_of(exp->test.kind);
  double R = fb->outer_radius_m, Ri = fb->inner_radius_ratio * R;
  double h = fb->length_m / fb->segments;
  fl_section sec = fl_section_hollow(R, Ri);
  fl_test_layout lay;
  memset(info, 0, sizeof *info);
  memset(&lay, 0, sizeof lay);
  info->h = h;
  info->section = sec;
  for (int s = 0; s < nspec; s++)
    if ((s > 0 || exps[s] != exp) && !fl_experiment_batchable(exp, exps[s]))
      return FL_EINPUT;
  int rc = type->layout(exp, h, &lay, info);
  if (rc)
    return rc;
  int nbody = lay.nbody, ng = lay.ngrip, nfree = lay.nfree;
  /* the rest shape and sections along the fiber (shape.c); the loader read its files */
  fl_shape sh;
  char serr[1024];
  const fl_failure_def *fd0 = &exp->bond.failure;
  rc = fl_shape_make(fb, nbody, h, fd0->criterion == FL_CRIT_BENDING_STRESS ? fd0->max_stress : 0.0, &sh, serr,
                     sizeof serr);
  if (rc)
    return rc;
  if (sh.curved && lay.chord)
    fl_shape_align_ends(&sh); /* the grips pull along, and turn about, the chord of the end segments */
  rc = fl_system_alloc(sys, nspec, nbody, nbody - 1, lay.ntool);
  if (rc) {
    fl_shape_free(&sh);
    return rc;
  }
  for (int i = 0; i < nbody; i++) {
    sys->x_ref[i] = sh.x[i];
    sys->q_ref[i] = sh.q[i];
    fl_system_set_segment(sys, i, sh.r_out[i], sh.ratio[i] * sh.r_out[i], h, fb->density);
    /* contacts: an ellipse touches the tools with its semi-axis a */
    sys->radius[i] = sh.varies ? sh.r_out[i] : fl_fiber_outer_fibre(fb);
    sys->motion[i] = i < ng ? FL_GRIP_FIXED : (i >= ng + nfree ? FL_GRIP_MOVING : FL_FREE);
  }
  if (type->rest)
    type->rest(exp, sys, h); /* the kind's own rest shape, before the bonds are made in it */
  /* Bonds and limits per specimen: specimens of a batch may differ in their bond
   * parameters and moduli (a calibration's perturbed runs). */
  for (int s = 0; s < nspec; s++) {
    if (s > 0 && exps[s] == exps[s - 1]) {
      memcpy(sys->bond + (size_t)s * sys->nbond, sys->bond + (size_t)(s - 1) * sys->nbond,
             (size_t)sys->nbond * sizeof *sys->bond);
      sys->limits[s] = sys->limits[s - 1];
      continue;
    }
    fl_side_stiffness st = side_stiffness(exps[s], &sec, 0.5 * h, 1.0);
    for (int b = 0; b < nbody - 1; b++) {
      fl_side_stiffness k1 = st, k2 = st;
      if (sh.varies || sh.curved) {
        /* each side its own section and modulus, over half the centre distance */
        double d = sh.curved ? 0.5 * fl_norm(fl_sub(sh.x[b + 1], sh.x[b])) : 0.5 * h;
        fl_section s1 = fl_section_hollow(sh.r_out[b], sh.ratio[b] * sh.r_out[b]),
                   s2 = fl_section_hollow(sh.r_out[b + 1], sh.ratio[b + 1] * sh.r_out[b + 1]);
        double E = exps[s]->fiber.youngs_modulus; /* a node keeps its own when a batch varies the fiber's */
        k1 = side_stiffness(exps[s], &s1, d, sh.modulus[b] > 0.0 ? sh.modulus[b] / E : 1.0);
        k2 = side_stiffness(exps[s], &s2, d, sh.modulus[b + 1] > 0.0 ? sh.modulus[b + 1] / E : 1.0);
      }
      if (lay.pinned && (b == 0 || b == nbody - 2)) {
        k1.k_bend *= FL_HINGE_BEND; /* the pins: the end bonds do not bend back */
        k2.k_bend *= FL_HINGE_BEND;
      }
      if (lay.rigid_face && b == ng - 1) {
        /* the clamp's face: its half segment inside the clamp is held whole; in bending
         * only without a buckling envelope, whose moment-angle law is one bending
         * stiffness for every bond (bond_limits) */
        k1.k_axial = FL_CLAMP_RIGID * k2.k_axial;
        k1.k_shear = FL_CLAMP_RIGID * k2.k_shear;
        k1.k_twist = FL_CLAMP_RIGID * k2.k_twist;
        if (exps[s]->bond.buckling.type == FL_BUCKLING_NONE)
          k1.k_bend = FL_CLAMP_RIGID * k2.k_bend;
      }
      fl_system_bond_chain(sys, s, b, b, b + 1, &k1, &k2);
    }
    sys->limits[s] = bond_limits(exps[s], &sec);
  }
  double kc = type->place(exp, exps, nspec, &sh, sys, info);
  /* The stability bound of the batch: the smallest of its specimens'. */
  info->critical_step = HUGE_VAL;
  for (int s = 0; s < nspec; s++) {
    if (s > 0 && exps[s] == exps[s - 1])
      continue;
    double c = fl_system_critical_step(sys, s, exps[s]->bond.damping, exps[s]->bond.damping_stabilization, kc);
    if (c < info->critical_step)
      info->critical_step = c;
  }
  fl_system_reset(sys);
  /* Per-bond strengths keyed by (seed, specimen, bond); with a varying section, the
   * limit of the weaker side in bending (its section modulus I / R and its node's
   * max_stress against the fiber's, on which the limits are computed). */
  for (int s = 0; s < nspec; s++)
    for (int b = 0; b < sys->nbond; b++) {
      double f = 1.0;
      if (sh.varies && exps[s]->bond.failure.criterion == FL_CRIT_BENDING_STRESS) {
        double z0 = sec.inertia / R;
        f = HUGE_VAL;
        for (int i = b; i <= b + 1; i++) {
          double zi = fl_section_hollow(sh.r_out[i], sh.ratio[i] * sh.r_out[i]).inertia / sh.r_out[i];
          double ms = exps[s]->bond.failure.max_stress; /* a node keeps its own when a batch varies it */
          f = fmin(f, (sh.strength[i] > 0.0 ? sh.strength[i] / ms : 1.0) * zi / z0);
        }
      }
      sys->bstate[(size_t)s * sys->nbond + b].strength =
          f * fl_rng_strength(exps[s]->sim.seed, (uint64_t)(first + s), (uint64_t)b,
                             exps[s]->bond.failure.strength_variation);
    }
  fl_shape_free(&sh);
  return FL_OK;
}

int fl_build_many(const fl_experiment *const *exps, int nspec, fl_system *sys, fl_build_info *info)
{
  return fl_build_block(exps[0], exps, nspec, 0, sys, info);
}

int fl_build(const fl_experiment *exp, int nspec, fl_system *sys, fl_build_info *info)
{
  const fl_experiment **exps = malloc((size_t)nspec * sizeof *exps);
  if (!exps)
    return FL_ENOMEM;
  for (int s = 0; s < nspec; s++)
    exps[s] = exp;
  int rc = fl_build_many(exps, nspec, sys, info);
  free(exps);
  return rc;
}
