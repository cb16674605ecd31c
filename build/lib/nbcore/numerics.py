"""Numerics of naive Bayes in log space: the one log-sum-exp, and log-likelihood helpers.

Every estimator scores in log space, b_c = log pi_c + log p(x | c), and turns scores into
posteriors with :func:`logsumexp`; nothing multiplies raw probabilities, which underflow to
0 after a few hundred factors (chapter 8).
"""

import numpy as np

__all__ = ["logsumexp", "log_ratio", "xlogp"]


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
    X : ndarray of shape (n_samples, n_features)
        Non-negative counts or 0/1 indicators.
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
    if not impossible.any():
        return X @ log_p.T
    out = X @ np.where(impossible, 0.0, log_p).T
    # x_id > 0 of an outcome with probability 0 makes the whole product 0
    out[((X != 0) @ impossible.T) > 0] = -np.inf
    return out
