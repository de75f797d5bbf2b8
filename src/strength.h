/* strength.h: what strength variation does to a specimen, and how a calibrated
 * strength carries over to another segment length (man 7 fiberlab-model, "Strength
 * and segment length").
 *
 * With strength variation cv, bond b of a specimen holds max_stress (1 + cv Z_b), Z_b
 * standard normal; n equally loaded bonds (a tension gauge, a torsion gauge) fail at
 * the weakest, so the specimen's strength is max_stress (1 + cv min_b Z_b).  With
 * e_n and s_n the mean and standard deviation of the least of n standard normal
 * numbers, its mean is max_stress (1 + cv e_n) and its standard deviation
 * max_stress cv s_n: both fall as n grows, so numbers calibrated on one segment
 * length do not describe the same material on another. */
#ifndef FL_STRENGTH_H
#define FL_STRENGTH_H

/* e_n and s_n (e_n < 0 for n >= 2; e_1 = 0, s_1 = 1), by quadrature of the density
 * n phi(z) (1 - Phi(z))^(n-1) of the least of n.  n in [1, 1e7]; FL_EINPUT outside. */
int fl_strength_least_normal(long n, double *mean, double *sd);

/* The bond strength and variation on n_to equally loaded bonds that give specimens
 * the same mean strength and spread as max_stress and cv on n_from:
 *   cv_to sigma_to s_{n_to}        = cv sigma s_{n_from}
 *   sigma_to (1 + cv_to e_{n_to})  = sigma (1 + cv e_{n_from})
 * FL_EINPUT when no positive solution exists (cv too large for the change). */
int fl_strength_carry(double sigma, double cv, long n_from, long n_to, double *sigma_to, double *cv_to);

#endif
