"""Numerics of naive Bayes in log space: the one log-sum-exp, and the log likelihoods.

Every estimator scores in log space, b_c = log pi_c + log p(x | c), and turns scores into
posteriors with :func:`logsumexp`; nothing multiplies raw probabilities, which underflow to
0 after a few hundred factors (chapter 8). The estimators compute their log likelihoods with
the functions here; a figure that draws a likelihood should call them too, so that it shows
the model the library fits. Their names and signatures are kept stable:

* :func:`gaussian_log_density`: sum_d log N(x_d; mu_cd, sigma^2_cd), shape (n_samples,
  n_classes), the likelihood of GaussianNB (and of MixedNB's numeric columns);
* :func:`categorical_log_score`: sum_d log theta_{c, d, x_d} over the observed features,
  the likelihood of CategoricalNB (and of MixedNB's categorical columns);
* :func:`xlogp` and :func:`xlogp_absent`: sum_d x_d log p_cd and sum_d (1 - x_d) log q_cd
  with 0 log 0 = 0, the kernels of the multinomial and Bernoulli likelihoods;
* :func:`log_ratio`: the log of a smoothed relative frequency;
* :func:`logsumexp`: log sum_c exp(b_c), which turns joint scores into posteriors.
"""

import numpy as np

__all__ = [
    "categorical_log_score",
    "gaussian_log_density",
    "log_ratio",
    "logsumexp",
    "xlogp",
    "xlogp_absent",
]


def logsumexp(a, axis=-1, keepdims=False):
    """log(sum(exp(a))) along an axis, without overflow or underflow.

    Computes B + log(sum(exp(a - B))) with B = max(a): every exponent is <= 0 and the largest
    is exactly 0, so the sum lies in [1, n] and neither overflows nor underflows.

    Parameters
    ----------
    a : array-like of shape (n_samples, n_classes), or any shape
        Log values, for example the joint log scores b_c of each sample.
    axis : int or None, default=-1
        Axis to sum over; None sums over all entries.
    keepdims : bool, default=False
        Keep the summed axis with length 1, so the result broadcasts against ``a``.

    Returns
    -------
    ndarray of shape (n_samples,), or (n_samples, 1) with ``keepdims=True``
        log(sum(exp(a))). A slice that is all -inf (every term is 0) gives -inf.

    Notes
    -----
    .. math:: \\log \\sum_c e^{b_c} = B + \\log \\sum_c e^{b_c - B}, \\quad B = \\max_c b_c

    Derived in chapter 8 (numerics: underflow and log-sum-exp).

    Examples
    --------
    >>> float(logsumexp([-1000.0, -1000.0]))  # log(2 e^-1000); exp(-1000) alone underflows
    -999.3068528194401
    """
    a = np.asarray(a, dtype=np.float64)
    B = np.max(a, axis=axis, keepdims=True)
    # an all -inf slice has no finite maximum; shift it by 0 so that it stays -inf, not NaN
    B = np.where(np.isfinite(B), B, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(a - B), axis=axis, keepdims=True)) + B
    return out if keepdims else np.squeeze(out, axis=axis)


def log_ratio(count, total, k):
    """log(count / total), the log of a smoothed relative frequency.

    Parameters
    ----------
    count : ndarray of shape (n_classes, k)
        Smoothed counts, for example N_cd + alpha.
    total : ndarray of shape (n_classes, 1), or broadcastable to ``count``
        Their normaliser, for example N_c + k alpha.
    k : int
        Number of values the probability is spread over.

    Returns
    -------
    ndarray of the shape of ``count``
        log(count) - log(total). log(0) = -inf is a legitimate answer (alpha=0 and a value
        never seen). A total of 0, which needs alpha=0 and no data for a class, is read as the
        limit alpha -> 0 of (0 + alpha) / (0 + k alpha) = 1/k: the uniform distribution.

    Notes
    -----
    Lidstone smoothing and its alpha -> 0 limit are derived in chapter 4.
    """
    with np.errstate(divide="ignore", invalid="ignore"):  # log 0 = -inf; 0/0 replaced below
        log_p = np.log(count) - np.log(total)
        uniform = -np.log(k)
    return np.where(total == 0, uniform, log_p)


def xlogp(X, log_p):
    """sum_d x_id log p_cd for every sample i and class c, with 0 log 0 = 0.

    The log of prod_d p_cd ** x_id, the kernel of the multinomial and Bernoulli likelihoods,
    as one matrix product X @ log_p.T. A probability of 0 (log p = -inf, possible with
    alpha=0) must only count where x_id > 0: the matrix product alone would give
    0 * -inf = NaN, so the zeros are handled apart.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n_samples, n_features)
        Non-negative counts or 0/1 indicators. A sparse X stays sparse.
    log_p : ndarray of shape (n_classes, n_features)
        Log probabilities, entries may be -inf.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)

    Notes
    -----
    The likelihoods are derived in chapters 3 and 7, their log-space form in chapter 8.
    """
    impossible = np.isneginf(log_p)
    # (log_p @ X.T).T is X @ log_p.T; in this order BLAS is faster on a tall X, and the result
    # comes out class by class (column-major), the layout the posterior's sums over classes want
    if not impossible.any():
        return (log_p @ X.T).T
    out = (np.where(impossible, 0.0, log_p) @ X.T).T
    # x_id > 0 of an outcome with probability 0 makes the whole product 0
    out[((X != 0) @ impossible.T) > 0] = -np.inf
    return out


def xlogp_absent(X, log_q):
    """sum_d (1 - x_id) log q_cd for every sample i and class c, with 0 log 0 = 0.

    The log of prod_d q_cd ** (1 - x_id), the "feature absent" half of the Bernoulli
    likelihood (q = 1 - theta), computed without forming 1 - X, which would be dense:
    sum_d (1 - x_id) log q_cd = sum_d log q_cd - sum_d x_id log q_cd. As in :func:`xlogp`,
    a probability q_cd = 0 counts only where 1 - x_id is not 0, that is where x_id != 1.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n_samples, n_features)
        0/1 indicators. A sparse X stays sparse.
    log_q : ndarray of shape (n_classes, n_features)
        Log probabilities, entries may be -inf.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)

    Notes
    -----
    The Bernoulli likelihood is derived in chapter 3, its linear form in chapter 9.
    """
    impossible = np.isneginf(log_q)
    finite = np.where(impossible, 0.0, log_q)
    out = finite.sum(axis=1) - X @ finite.T
    # an absent feature (x_id != 1) whose absence has probability 0 rules out class c
    n_present = (X == 1) @ impossible.T.astype(np.float64)
    out[n_present < impossible.sum(axis=1)] = -np.inf
    return out


def gaussian_log_density(X, mean, var, center=None):
    """sum_d log N(x_id; mu_cd, sigma^2_cd) for every sample i and class c.

    The log density of independent normal features, -1/2 sum_d [log(2 pi sigma^2_cd) +
    (x_id - mu_cd)^2 / sigma^2_cd], as matrix products for all classes at once.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    mean : ndarray of shape (n_classes, n_features)
        mu_cd.
    var : ndarray of shape (n_classes, n_features)
        sigma^2_cd, all > 0.
    center : ndarray of shape (n_features,), default=None
        A point near the data, subtracted from x and mu before the products (see Notes);
        None takes the average of the class means.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)

    Notes
    -----
    .. math:: \\sum_d \\frac{(x_d - \\mu_{cd})^2}{\\sigma^2_{cd}}
              = x^2 \\cdot \\tfrac{1}{\\sigma^2_c} - 2\\, x \\cdot
              \\tfrac{\\mu_c}{\\sigma^2_c} + \\mu_c^2 \\cdot \\tfrac{1}{\\sigma^2_c}

    The expansion cancels catastrophically when x and mu share a large offset (x, mu ~ 1e6):
    both are shifted by ``center`` first, which leaves every difference x - mu unchanged.
    Centring cannot remove the distance from a class mean to the centre: where x is near
    mu_c and both are many standard deviations sigma_c from the centre, the three terms are
    large and nearly cancel, and those entries are computed again directly as (x - mu_c)^2.
    The Gaussian likelihood is derived in chapter 3; chapter 8 explains the centring.

    Examples
    --------
    >>> gaussian_log_density(np.array([[0.0]]), np.array([[0.0]]), np.array([[1.0]]))
    array([[-0.91893853]])
    """
    m = np.mean(mean, axis=0) if center is None else center
    Xc, mu = X - m, mean - m
    precision = 1.0 / var
    # each product is taken as (classes, samples) and transposed: the result is stored class by
    # class (column-major), so that the max and sum over classes that normalise it run along
    # memory instead of along short rows of a few classes
    cross = ((mu * precision) @ Xc.T).T
    np.square(Xc, out=Xc)
    squares = (precision @ Xc.T).T + np.sum(mu**2 * precision, axis=1)  # x^2 and mu^2 terms
    quad = squares - 2.0 * cross
    # rounding leaves an error of about 1e-16 * squares in quad. Where squares dwarfs quad (x
    # near mu_c, both far from the centre in units of sigma_c) too few digits are left: those
    # entries are computed again as (x - mu_c)^2, class by class, which does not cancel
    redo = squares > 1e4 * (quad + 1.0)
    for c in np.flatnonzero(redo.any(axis=0)):
        rows = redo[:, c]
        quad[rows, c] = np.square(X[rows] - mean[c]) @ precision[c]
    return -0.5 * (np.sum(np.log(2.0 * np.pi * var), axis=1) + quad)


def categorical_log_score(codes, log_theta):
    """sum_d log theta_{c, d, x_id} over the observed features, for every sample i and class c.

    Parameters
    ----------
    codes : ndarray of int of shape (n_samples, n_features)
        The category index k of each value, in 0..K_d - 1; -1 leaves the value out (missing,
        or an unknown category ignored).
    log_theta : list of n_features ndarrays of shape (n_classes, K_d)
        log theta_cdk = log P(x_d = k | y = c), for example ``CategoricalNB.feature_log_prob_``.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)

    Notes
    -----
    Leaving a feature out is marginalising it: sum_k theta_cdk = 1, a factor of 1, log 1 = 0.
    Derived in chapters 3 and 6.

    Examples
    --------
    >>> log_theta = [np.log([[0.5, 0.5], [0.9, 0.1]])]  # one feature, two classes
    >>> np.exp(categorical_log_score(np.array([[1], [-1]]), log_theta))
    array([[0.5, 0.1],
           [1. , 1. ]])
    """
    n_classes = log_theta[0].shape[0] if len(log_theta) else 0
    score = np.zeros((codes.shape[0], n_classes))
    for table, column in zip(log_theta, codes.T, strict=True):
        # row x_d of the table (K_d + 1, n_classes) below; code -1 picks its last row, zeros
        with_missing = np.vstack([table.T, np.zeros((1, n_classes))])
        score += with_missing[column]
    return score
