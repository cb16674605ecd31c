"""The explorer of the chapter on unlabelled text: EM for naive Bayes on the SMS Spam Collection.

The distinct messages of the collection are split once into a test set and a pool; a few
messages of the pool keep their label and the rest are unlabelled (label -1). The multinomial
model is fitted on the labelled messages alone (:class:`nbcore.MultinomialNB`) and by EM on
all of the pool (:class:`nbcore.SemiSupervisedNB`), and both are scored on the test set.

:func:`sms_split` builds the bag of words (a sparse count matrix), :func:`labelled_rows` draws
a labelled subset, :func:`em_run` fits and scores one subset, :func:`em_sweep` repeats it over
subsets, sizes and weights lambda (the static twin's data), :func:`em_panel` shows one setting
and :func:`em_explorer` puts sliders on it.
"""

import functools
import html

import numpy as np
import pandas as pd

from nbcore._validation import check_int, check_real
from nbcore.datasets import load_sms_spam
from nbcore.multinomial import MultinomialNB
from nbcore.plotting import class_style, figure_html, new_figure
from nbcore.semi import SemiSupervisedNB
from nbcore.widgets._explorer import Slider, Steps, explorer
from nbcore.widgets.text import tokenize

__all__ = [
    "CLASSES",
    "CONTROLS",
    "LABELLED_SIZES",
    "sms_split",
    "labelled_rows",
    "em_run",
    "em_sweep",
    "em_panel",
    "em_explorer",
]

CLASSES = ("ham", "spam")  # label 0 and label 1
LABELLED_SIZES = (2, 4, 8, 16, 32, 64, 128, 256, 512)


@functools.lru_cache(maxsize=4)
def _split(n_test, seed, min_df):
    import scipy.sparse as sp  # only the explorer's data needs SciPy

    frame = load_sms_spam().drop_duplicates("text").reset_index(drop=True)
    order = np.random.default_rng(seed).permutation(len(frame))
    test, pool = order[:n_test], order[n_test:]
    documents = [tokenize(text) for text in frame["text"]]
    # the vocabulary: words in at least min_df messages of the pool (the test set unseen)
    in_messages = {}
    for i in pool:
        for word in set(documents[i]):
            in_messages[word] = in_messages.get(word, 0) + 1
    vocabulary = sorted(word for word, n in in_messages.items() if n >= min_df)
    column = {word: d for d, word in enumerate(vocabulary)}

    def counts(rows):
        # one (row, column) entry per token; duplicates are summed by the CSR conversion
        pairs = [(r, column[w]) for r, i in enumerate(rows) for w in documents[i] if w in column]
        r, c = np.array(pairs, dtype=np.int64).T
        X = sp.coo_matrix((np.ones(len(r)), (r, c)), shape=(len(rows), len(vocabulary)))
        return X.tocsr()

    y = (frame["label"].to_numpy() == "spam").astype(np.int64)
    return {
        "X_pool": counts(pool),
        "y_pool": y[pool],
        "X_test": counts(test),
        "y_test": y[test],
        "text_pool": frame["text"].to_numpy()[pool],
        "vocabulary": vocabulary,
    }


def sms_split(n_test=1200, seed=12, min_df=2):
    """The distinct SMS messages as a pool and a test set, as bags of words.

    Parameters
    ----------
    n_test : int, default 1200
        Messages in the test set (drawn at random; the rest form the pool).
    seed : int, default 12
        Seed of the random split.
    min_df : int, default 2
        A word is in the vocabulary when at least ``min_df`` messages of the pool contain it
        (words are runs of letters, lower case, as in the chapter on text).

    Returns
    -------
    dict
        ``X_pool``, ``X_test``: scipy.sparse CSR word counts of shape (n_messages, n_words);
        ``y_pool``, ``y_test``: labels, 0 ham and 1 spam; ``text_pool``: the pool's messages;
        ``vocabulary``: the words, one per column. The same dict for the same arguments
        (cached): do not modify it.
    """
    n_messages = len(load_sms_spam().drop_duplicates("text"))
    n_test = check_int("n_test", n_test, 1, n_messages - 2)
    seed = check_int("seed", seed, 0)
    min_df = check_int("min_df", min_df, 1)
    return _split(n_test, seed, min_df)


def labelled_rows(y, n_labelled, seed):
    """Which rows of the pool keep their label: one of each class, the rest at random.

    Parameters
    ----------
    y : array of shape (n_samples,)
        The pool's labels (0 and 1).
    n_labelled : int >= 2
    seed : int >= 0

    Returns
    -------
    ndarray of int, shape (n_labelled,)
        Distinct row indices, sorted; at least one row of each class, so that EM has a
        labelled message of each class to start from.
    """
    y = np.asarray(y)
    n_labelled = check_int("n_labelled", n_labelled, 2, len(y))
    rng = np.random.default_rng(check_int("seed", seed, 0))
    first = [int(rng.choice(np.flatnonzero(y == c))) for c in (0, 1)]
    rest = np.setdiff1d(np.arange(len(y)), first)
    return np.sort(np.concatenate([first, rng.choice(rest, n_labelled - 2, replace=False)]))


def em_run(n_labelled, lambda_, seed=0, *, data=None, alpha=1.0, max_iter=100, tol=1e-6):
    """Fit one labelled subset of the pool without and with EM; score both on the test set.

    Parameters
    ----------
    n_labelled : int >= 2
        Messages of the pool that keep their label (:func:`labelled_rows`).
    lambda_ : float >= 0
        Weight of each unlabelled message in EM.
    seed : int, default 0
        Which labelled subset.
    data : dict, optional
        A split as :func:`sms_split` returns it; default ``sms_split()``.
    alpha, max_iter, tol
        The multinomial model's smoothing, and EM's limits (:class:`nbcore.SemiSupervisedNB`).

    Returns
    -------
    dict
        ``"supervised"`` and ``"em"``: test accuracy of the labelled fit and of EM;
        ``"spam_supervised"`` and ``"spam_em"``: the share of test messages each calls spam;
        ``"log_likelihood"``: EM's objective after the labelled fit and each iteration;
        ``"n_iter"``, ``"converged"``: EM's.
    """
    data = sms_split() if data is None else data
    lambda_ = check_real("lambda_", lambda_, 0.0)
    X, y = data["X_pool"], data["y_pool"]
    rows = labelled_rows(y, n_labelled, seed)
    partial = np.full(len(y), -1)
    partial[rows] = y[rows]
    supervised = MultinomialNB(alpha=alpha).fit(X[rows], y[rows])
    em = SemiSupervisedNB(
        MultinomialNB(alpha=alpha), lambda_=lambda_, max_iter=max_iter, tol=tol
    ).fit(X, partial)
    called_supervised, called_em = supervised.predict(data["X_test"]), em.predict(data["X_test"])
    return {
        "supervised": float(np.mean(called_supervised == data["y_test"])),
        "em": float(np.mean(called_em == data["y_test"])),
        "spam_supervised": float(np.mean(called_supervised == 1)),
        "spam_em": float(np.mean(called_em == 1)),
        "log_likelihood": em.log_likelihood_,
        "n_iter": em.n_iter_,
        "converged": em.converged_,
    }


def em_sweep(n_values, lambdas, repeats, *, data=None, alpha=1.0):
    """:func:`em_run` for every size, weight and labelled subset (seeds 0 to repeats - 1).

    Returns
    -------
    DataFrame
        One row per run: ``n_labelled``, ``lambda_``, ``seed``, ``supervised``, ``em``,
        ``n_iter``, ``spam_supervised``, ``spam_em``.
    """
    repeats = check_int("repeats", repeats, 1)
    rows = []
    for n in n_values:
        for lambda_ in lambdas:
            for seed in range(repeats):
                run = em_run(n, lambda_, seed, data=data, alpha=alpha)
                rows.append(
                    {
                        "n_labelled": int(n),
                        "lambda_": float(lambda_),
                        "seed": seed,
                        "supervised": run["supervised"],
                        "em": run["em"],
                        "n_iter": run["n_iter"],
                        "spam_supervised": run["spam_supervised"],
                        "spam_em": run["spam_em"],
                    }
                )
    return pd.DataFrame(rows)


def _mean_sem(values):
    values = np.asarray(values, dtype=float)
    sem = values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else float("nan")
    return float(values.mean()), float(sem)


def em_panel(n_labelled, lambda_, *, alpha=1.0, repeats=5, data=None):
    """The explorer's panel as HTML: accuracy without and with EM over ``repeats`` labelled
    subsets (mean, standard error, range) with the share of test messages each calls spam,
    and EM's objective, iteration by iteration, on each subset. ``alpha`` is the smoothing of
    both models (the labelled fit and EM's)."""
    n_labelled = check_int("n_labelled", n_labelled, 2)
    lambda_ = check_real("lambda_", lambda_, 0.0)
    alpha = check_real("alpha", alpha, 0.0, open_low=True)  # > 0: no word gets probability 0
    repeats = check_int("repeats", repeats, 1)
    runs = [em_run(n_labelled, lambda_, seed, data=data, alpha=alpha) for seed in range(repeats)]
    spam = float(np.mean((sms_split() if data is None else data)["y_test"] == 1))
    rows = []
    for key, name in (("supervised", "labelled messages only"), ("em", "EM")):
        mean, sem = _mean_sem([run[key] for run in runs])
        low, high = min(run[key] for run in runs), max(run[key] for run in runs)
        called = np.mean([run[f"spam_{key}"] for run in runs])
        rows.append(
            f"<tr><th>{name}</th><td>{mean:.3f}</td><td>{sem:.3f}</td>"
            f"<td>{low:.3f} to {high:.3f}</td><td>{called:.1%}</td></tr>"
        )
    iterations = ", ".join(str(run["n_iter"]) for run in runs)
    table = (
        "<table><thead><tr><th>model</th><th>mean test accuracy</th><th>standard error</th>"
        f"<th>range over the {repeats} subsets</th><th>test messages called spam</th></tr>"
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
        f"<p>Spam is {spam:.1%} of the test messages. EM iterations on each subset: "
        f"{html.escape(iterations)}.</p>"
    )
    fig, axes = new_figure(1, 1, figsize=(5.6, 3.0))
    ax = axes[0, 0]
    for seed, run in enumerate(runs):
        style = class_style(seed)
        trace = run["log_likelihood"]
        ax.plot(
            np.arange(len(trace)),
            trace,
            color=style["color"],
            marker=style["marker"],
            markersize=4,
            label=f"subset {seed + 1}",
        )
    ax.set_xlabel("EM iteration (0: the labelled fit)")
    ax.set_ylabel("EM objective (nats)")
    ax.legend(fontsize=7, loc="lower right")
    alt = (
        f"EM's objective against the iteration for {repeats} random subsets of "
        f"{n_labelled} labelled messages with lambda = {lambda_:.3g} and alpha = "
        f"{alpha:.3g}: every line starts at "
        "the labelled fit and rises, or stays level, at every step until EM stops."
    )
    return table + figure_html(fig, alt)


#: The explorer's controls: how many messages keep their label, the weight lambda of the
#: unlabelled ones (log scale, 0.001 to 1), and the smoothing alpha (log scale, 0.01 to 1):
#: lambda and alpha act together (chapter 12).
CONTROLS = (
    Steps("n_labelled", "labelled messages", LABELLED_SIZES),
    Slider("lambda_", "weight lambda of unlabelled", -3.0, 0.0, 0.25, fmt=".3g", log=True),
    Slider("alpha", "smoothing alpha", -2.0, 0.0, 0.5, fmt=".3g", log=True),
)


def em_explorer(n_labelled=8, lambda_=1.0, alpha=1.0):
    """Sliders for the number of labelled messages, lambda and alpha over :func:`em_panel`.

    Returns an ipywidgets.VBox.
    """
    return explorer(CONTROLS, em_panel, n_labelled=n_labelled, lambda_=lambda_, alpha=alpha)
