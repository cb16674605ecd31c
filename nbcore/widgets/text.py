"""The text chapter's explorer: how each word of a message moves the log-odds of spam.

The Bernoulli model asks of every vocabulary word whether it is present, so absent words count
as evidence too; the multinomial model counts the words that are there. :func:`word_contributions`
splits each fitted model's log-odds b_spam - b_ham into the prior, one term per word and (for
the Bernoulli model) the absent words; :func:`text_explorer` shows it for a typed message, and
:func:`log_odds_table` with :func:`contribution_small_multiples` is its static twin.
"""

import html
import re
from functools import partial

import numpy as np
import pandas as pd

from nbcore._validation import check_real
from nbcore.bernoulli import BernoulliNB
from nbcore.datasets import load_messages
from nbcore.multinomial import MultinomialNB
from nbcore.plotting import class_style, figure_html, new_figure
from nbcore.widgets._explorer import Slider, Text, explorer

__all__ = [
    "EXAMPLE_MESSAGES",
    "tokenize",
    "count_matrix",
    "word_contributions",
    "log_odds_table",
    "text_panel",
    "contribution_small_multiples",
    "text_explorer",
]

#: Three messages that are not in the corpus, used by the explorer and its static twin.
EXAMPLE_MESSAGES = (
    "Claim your free prize now",
    "Are you free for a call tomorrow?",
    "Free lunch! Free drinks! Free entry tonight",
)

CLASSES, MODELS = ("ham", "spam"), ("Bernoulli", "multinomial")  # classes in sorted order
PRIOR_ROW, ABSENT_ROW = "prior", "absent words"

_NON_LETTERS = re.compile(r"[^a-z]+")


def tokenize(text):
    """The words of ``text`` in order, lower case, repeats kept, split at every non-letter
    ("Free, free!" gives ``["free", "free"]``, "don't" gives ``["don", "t"]``)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return [word for word in _NON_LETTERS.split(text.lower()) if word]


def count_matrix(texts, vocabulary=None):
    """The bag-of-words counts of some messages: how often each vocabulary word occurs in each.

    Parameters
    ----------
    texts : sequence of str, length n_samples
    vocabulary : sequence of str, optional
        The words to count, one column each (others are left out); default every word of
        ``texts``, sorted.

    Returns
    -------
    counts : ndarray of int, shape (n_samples, n_features)
    vocabulary : list of str, length n_features
    """
    if isinstance(texts, str) or not hasattr(texts, "__iter__"):
        raise TypeError(f"texts must be a sequence of str, got {type(texts).__name__}")
    documents = [tokenize(t) for t in texts]
    if vocabulary is None:
        vocabulary = sorted({word for doc in documents for word in doc})
    else:
        vocabulary = [str(word) for word in vocabulary]
        if len(set(vocabulary)) != len(vocabulary):
            raise ValueError("vocabulary must not repeat a word")
    column = {word: d for d, word in enumerate(vocabulary)}
    counts = np.zeros((len(documents), len(vocabulary)), dtype=np.int64)
    for i, doc in enumerate(documents):
        for word in doc:
            if word in column:
                counts[i, column[word]] += 1
    return counts, vocabulary


def _messages_data(data):
    """The training messages: ``data`` checked, or the book's corpus."""
    if data is None:
        return load_messages()
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    if not {"text", "label"} <= set(data.columns):
        raise ValueError(f"data must have columns 'text' and 'label', got {list(data.columns)}")
    if set(data["label"]) != set(CLASSES):
        raise ValueError(f"data labels must be 'ham' and 'spam', got {sorted(set(data['label']))}")
    return data


def word_contributions(message, alpha=1.0, *, data=None):
    """Split the log-odds of spam for one message into a term per word, for both models.

    nbcore's BernoulliNB and MultinomialNB are fitted to ``data`` with the same smoothing; the
    log-odds b_spam - b_ham and P(spam | x) are theirs (``predict_joint_log_proba``,
    ``predict_proba``). With theta_cd = exp(feature_log_prob_[c, d]):

    * multinomial: word d adds x_d * (log theta_spam,d - log theta_ham,d), x_d its count;
    * Bernoulli: a present word adds log theta_spam,d - log theta_ham,d once, however often it
      occurs; the absent words together add the rest of the model's log-odds.

    Both add the prior's log pi_spam - log pi_ham; words outside the vocabulary are ignored.

    Parameters
    ----------
    message : str
    alpha : float > 0, default 1.0
    data : DataFrame with columns ``text`` and ``label``, default ``load_messages()``

    Returns
    -------
    dict
        ``"contributions"``: DataFrame, rows ``"prior"``, the message's known words and
        ``"absent words"``, a column per model; ``"log_odds"`` and ``"posterior_spam"``: Series
        by model; ``"unknown"``: the message's words outside the vocabulary.
    """
    if not isinstance(message, str):
        raise TypeError(f"message must be a str, got {type(message).__name__}")
    alpha = check_real("alpha", alpha, 0.0, open_low=True)
    data = _messages_data(data)
    X, vocabulary = count_matrix(data["text"].tolist())
    y = data["label"].to_numpy()
    x = count_matrix([message], vocabulary)[0]
    words = tokenize(message)
    known = list(dict.fromkeys(w for w in words if w in vocabulary))
    unknown = list(dict.fromkeys(w for w in words if w not in vocabulary))
    index = [vocabulary.index(w) for w in known]
    columns, log_odds, posterior = {}, {}, {}
    for name, kind in zip(MODELS, (BernoulliNB, MultinomialNB), strict=True):
        model = kind(alpha=alpha).fit(X, y)
        ham, spam = (list(model.classes_).index(c) for c in CLASSES)
        b = model.predict_joint_log_proba(x)[0]
        log_odds[name] = float(b[spam] - b[ham])
        posterior[name] = float(model.predict_proba(x)[0, spam])
        prior = float(model.class_log_prior_[spam] - model.class_log_prior_[ham])
        log_ratio = model.feature_log_prob_[spam, index] - model.feature_log_prob_[ham, index]
        words_term = log_ratio if kind is BernoulliNB else x[0, index] * log_ratio
        # the Bernoulli absent words: what the model's log-odds holds beyond prior and words
        absent = log_odds[name] - prior - words_term.sum() if kind is BernoulliNB else 0.0
        columns[name] = [prior, *words_term, absent]
    table = pd.DataFrame(columns, index=pd.Index([PRIOR_ROW, *known, ABSENT_ROW], name="term"))
    return {
        "contributions": table,
        "log_odds": pd.Series(log_odds, name="log-odds of spam"),
        "posterior_spam": pd.Series(posterior, name="P(spam | x)"),
        "unknown": unknown,
    }


def _grid(messages, alphas):
    """Checked messages and alphas of a sweep, both non-empty."""
    alphas = [check_real("alpha", a, 0.0, open_low=True) for a in np.atleast_1d(alphas).tolist()]
    messages = list(messages)
    if not messages or not alphas:
        raise ValueError("messages and alphas must each hold at least one value")
    return messages, alphas


def log_odds_table(messages, alphas, *, data=None):
    """Each model's log-odds and P(spam | x) of every message (sequence of str) at every alpha
    (sequence of float > 0): a DataFrame indexed by (message, alpha), with four columns."""
    (messages, alphas), data, records = _grid(messages, alphas), _messages_data(data), []
    for message in messages:
        for a in alphas:
            state = word_contributions(message, a, data=data)
            record = {"message": message, "alpha": a}
            record.update({f"log-odds ({m})": state["log_odds"][m] for m in MODELS})
            record.update({f"P(spam) ({m})": state["posterior_spam"][m] for m in MODELS})
            records.append(record)
    return pd.DataFrame(records).set_index(["message", "alpha"])


def text_panel(message, alpha, *, data=None):
    """The explorer's panel as HTML: a bar chart and a table of each term of
    :func:`word_contributions` for both models, then each model's log-odds and P(spam | x)."""
    state = word_contributions(message, alpha, data=data)
    table = state["contributions"]
    fig, axes = new_figure(1, 1, figsize=(6.4, 0.45 * len(table) + 1.4))
    _draw_contributions(axes[0, 0], table)
    axes[0, 0].set_xlabel("contribution to log P(spam | x) - log P(ham | x)")
    axes[0, 0].legend(loc="lower right")
    alt = (
        f"Horizontal bars, a Bernoulli and a multinomial bar for each term: "
        f"{', '.join(table.index)}. Bars to the right favour spam; the table gives the values."
    )
    totals = "".join(
        f"<p>{m}: log-odds {state['log_odds'][m]:+.2f}, "
        f"P(spam | x) = {state['posterior_spam'][m]:.3f}</p>"
        for m in MODELS
    )
    unknown = html.escape(", ".join(state["unknown"]))
    note = f"<p>Not in the vocabulary (ignored): {unknown}</p>" if unknown else ""
    return (
        f"<div><p>alpha = {alpha:.2f}; bars to the right favour spam, to the left ham.</p>"
        f"{figure_html(fig, alt)}{table.to_html(float_format='{:+.2f}'.format)}{totals}{note}</div>"
    )


def _draw_contributions(ax, table):
    """Grouped horizontal bars: one pair (Bernoulli, multinomial) per term, top to bottom."""
    y = np.arange(len(table.index))
    for j, model in enumerate(MODELS):
        style = {k: class_style(j)[k] for k in ("color", "hatch")}
        offset = (j - 0.5) * _BAR_HEIGHT
        ax.barh(y + offset, table[model], _BAR_HEIGHT, label=model, **style, **_BAR_EDGE)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y, [str(t) for t in table.index])
    ax.invert_yaxis()
    ax.grid(axis="y", visible=False)


_BAR_HEIGHT, _BAR_EDGE = 0.38, {"edgecolor": "black", "linewidth": 0.5}


def contribution_small_multiples(messages=EXAMPLE_MESSAGES, alphas=(0.1, 1.0, 5.0), *, data=None):
    """The explorer's static twin: one bar chart of :func:`word_contributions` per message
    (rows) and smoothing (columns); panels in a row share their axes. Arguments as in
    :func:`log_odds_table`. Returns a matplotlib Figure."""
    (messages, alphas), data = _grid(messages, alphas), _messages_data(data)
    states = [[word_contributions(m, a, data=data) for a in alphas] for m in messages]
    n_terms = [len(row[0]["contributions"]) for row in states]
    figsize = (3.3 * len(alphas) + 1.2, sum(0.32 * n + 1.1 for n in n_terms))
    fig, axes = new_figure(len(messages), len(alphas), figsize=figsize)
    # rows differ in their terms; heights follow the number of terms of each row
    fig.get_layout_engine().set(hspace=0.04)
    for i, (message, row) in enumerate(zip(messages, states, strict=True)):
        limit = max(float(np.abs(s["contributions"].to_numpy()).max()) for s in row) * 1.1
        for k, (a, state) in enumerate(zip(alphas, row, strict=True)):
            ax = axes[i, k]
            _draw_contributions(ax, state["contributions"])
            ax.set_xlim(-limit, limit)
            p = state["posterior_spam"]
            title = f"alpha = {a:g}\nP(spam): B {p['Bernoulli']:.2f}, M {p['multinomial']:.2f}"
            ax.set_title(title, fontsize=9)
            if k > 0:
                ax.set_yticklabels([])
            if i == len(messages) - 1:
                ax.set_xlabel("log-odds contribution")
        axes[i, 0].set_ylabel(f'"{message}"', fontsize=9)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=len(MODELS))
    return fig


#: The explorer's controls: a message (typed, or one of the examples) and the smoothing.
CONTROLS = (
    Text("message", "message", EXAMPLE_MESSAGES, "type a message"),
    Slider("alpha", "smoothing alpha", 0.05, 5.0, 0.05, fmt=".2f"),
)


def text_explorer(message=EXAMPLE_MESSAGES[0], alpha=1.0, *, data=None):
    """A message box and a smoothing slider (0.05 to 5) over :func:`text_panel`, the models
    fitted to ``data`` (as in :func:`word_contributions`). Returns an ``ipywidgets.VBox``."""
    show = partial(text_panel, data=_messages_data(data))
    return explorer(CONTROLS, show, message=message, alpha=alpha)
