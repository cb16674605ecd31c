"""The text chapter's explorer: how each word of a message moves the log-odds of spam.

Bernoulli and multinomial naive Bayes read the same message differently. The Bernoulli model
asks, for every word of the vocabulary, whether it is present, so the words a message lacks
count as evidence too; the multinomial model counts the words that are there, each occurrence
adding the same amount. The pure functions below split the log-odds
log P(spam | x) - log P(ham | x) into one term per word (plus the prior, plus the absent
words of the Bernoulli model), and :func:`text_explorer` wires a message box and a smoothing
slider to them. The static twin for the HTML book is :func:`contribution_small_multiples`
with :func:`log_odds_table`.

"""

import html
import re

import numpy as np
import pandas as pd

from nbcore._validation import check_real
from nbcore.bernoulli import BernoulliNB
from nbcore.datasets import load_messages
from nbcore.multinomial import MultinomialNB
from nbcore.plotting import class_style, new_figure

__all__ = [
    "EXAMPLE_MESSAGES",
    "tokenize",
    "count_matrix",
    "word_contributions",
    "log_odds_table",
    "contributions_html",
    "contribution_figure",
    "contribution_small_multiples",
    "text_explorer",
]

#: Three messages that are not in the corpus, used by the explorer and its static twin.
EXAMPLE_MESSAGES = (
    "Claim your free prize now",
    "Are you free for a call tomorrow?",
    "Free lunch! Free drinks! Free entry tonight",
)

#: The two classes, in the order of ``classes_`` (sorted labels).
CLASSES = ("ham", "spam")
MODELS = ("Bernoulli", "multinomial")
PRIOR_ROW, ABSENT_ROW = "prior", "absent words"

# Range and step of the explorer's smoothing slider (alpha = 0 would give log 0 = -inf).
ALPHA_MIN, ALPHA_MAX, ALPHA_STEP = 0.05, 5.0, 0.05

_NON_LETTERS = re.compile(r"[^a-z]+")


def tokenize(text):
    """Split a message into words: lower case, broken at every character that is not a letter.

    Parameters
    ----------
    text : str

    Returns
    -------
    list of str
        The words in order, repeats kept ("Free, free!" gives ``["free", "free"]``); digits
        and punctuation are separators, so "don't" gives ``["don", "t"]``.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return [word for word in _NON_LETTERS.split(text.lower()) if word]


def count_matrix(texts, vocabulary=None):
    """The bag-of-words counts of some messages: how often each vocabulary word occurs in each.

    Parameters
    ----------
    texts : sequence of str, length n_samples
    vocabulary : sequence of str, optional
        The words to count, one column each. By default every word of ``texts``, sorted.
        Words of a message that are not in the vocabulary are left out.

    Returns
    -------
    counts : ndarray of int, shape (n_samples, n_features)
        ``counts[i, d]`` is the number of times word d occurs in message i.
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

    Both models are fitted to ``data`` with the same smoothing. With theta_cd the fitted
    probability of word d in class c:

    * multinomial: word d adds x_d * (log theta_spam,d - log theta_ham,d), where x_d is its
      count in the message; absent words add nothing;
    * Bernoulli: a present word adds log theta_spam,d - log theta_ham,d (once, however often
      it occurs), and every absent word adds log(1 - theta_spam,d) - log(1 - theta_ham,d);
      the absent words are summed into one row.

    The prior adds log pi_spam - log pi_ham in both. Words not in the corpus's vocabulary are
    ignored by both models (listed under ``"unknown"``).

    Parameters
    ----------
    message : str
    alpha : float > 0, default 1.0
        Additive smoothing of both models.
    data : DataFrame with columns ``text`` and ``label``, optional
        Training messages; default :func:`nbcore.datasets.load_messages`.

    Returns
    -------
    dict
        ``"contributions"``: DataFrame with rows ``"prior"``, each known word of the message
        (first-appearance order) and ``"absent words"``, columns ``"Bernoulli"`` and
        ``"multinomial"``; ``"log_odds"``: Series, the column sums;
        ``"posterior_spam"``: Series, P(spam | x) = 1 / (1 + exp(-log_odds));
        ``"unknown"``: list of the message's words outside the vocabulary.
    """
    if not isinstance(message, str):
        raise TypeError(f"message must be a str, got {type(message).__name__}")
    alpha = check_real("alpha", alpha, 0.0, open_low=True)
    data = _messages_data(data)
    X, vocabulary = count_matrix(data["text"].tolist())
    y = data["label"].to_numpy()
    bernoulli = BernoulliNB(alpha=alpha).fit(X, y)
    multinomial = MultinomialNB(alpha=alpha).fit(X, y)
    ham, spam = (list(bernoulli.classes_).index(c) for c in CLASSES)

    words = tokenize(message)
    column = {word: d for d, word in enumerate(vocabulary)}
    known = list(dict.fromkeys(w for w in words if w in column))
    unknown = list(dict.fromkeys(w for w in words if w not in column))
    x = np.zeros(len(vocabulary))
    for word in words:
        if word in column:
            x[column[word]] += 1

    log_theta_b = bernoulli.feature_log_prob_
    present_b = log_theta_b[spam] - log_theta_b[ham]  # log theta_spam,d - log theta_ham,d
    log_not = np.log1p(-np.exp(log_theta_b))  # log(1 - theta_cd)
    absent_b = log_not[spam] - log_not[ham]
    log_theta_m = multinomial.feature_log_prob_
    word_m = log_theta_m[spam] - log_theta_m[ham]

    prior = float(bernoulli.class_log_prior_[spam] - bernoulli.class_log_prior_[ham])
    rows = [PRIOR_ROW, *known, ABSENT_ROW]
    index = [column[w] for w in known]
    table = pd.DataFrame(
        {
            "Bernoulli": [prior, *present_b[index], float(absent_b[x == 0].sum())],
            "multinomial": [prior, *(x[index] * word_m[index]), 0.0],
        },
        index=pd.Index(rows, name="term"),
    )
    log_odds = table.sum().rename("log-odds of spam")
    posterior = (1.0 / (1.0 + np.exp(-log_odds))).rename("P(spam | x)")
    return {
        "contributions": table,
        "log_odds": log_odds,
        "posterior_spam": posterior,
        "unknown": unknown,
    }


def log_odds_table(messages, alphas, *, data=None):
    """P(spam | x) of several messages under both models at several smoothings.

    Parameters
    ----------
    messages : sequence of str, length n_messages
    alphas : sequence of float > 0, length n_alphas
    data : DataFrame, optional
        As in :func:`word_contributions`.

    Returns
    -------
    DataFrame of shape (n_messages * n_alphas, 4)
        Index (message, alpha); columns the log-odds of spam and P(spam | x) of each model.
    """
    alphas = [check_real("alpha", a, 0.0, open_low=True) for a in np.atleast_1d(alphas).tolist()]
    messages = list(messages)
    if not messages or not alphas:
        raise ValueError("messages and alphas must each hold at least one value")
    data = _messages_data(data)
    records = []
    for message in messages:
        for a in alphas:
            state = word_contributions(message, a, data=data)
            records.append(
                {
                    "message": message,
                    "alpha": a,
                    "log-odds (Bernoulli)": state["log_odds"]["Bernoulli"],
                    "log-odds (multinomial)": state["log_odds"]["multinomial"],
                    "P(spam) (Bernoulli)": state["posterior_spam"]["Bernoulli"],
                    "P(spam) (multinomial)": state["posterior_spam"]["multinomial"],
                }
            )
    return pd.DataFrame(records).set_index(["message", "alpha"])


def _bar_cell(value, scale, colour, pattern):
    """Two table cells: a bar growing left (negative) or right (positive) from the middle."""
    width = 0.0 if scale == 0 else min(100.0, 100.0 * abs(value) / scale)
    bar = (
        f"<div style='display:inline-block;height:0.8em;width:{width:.1f}%;"
        f"background:{colour};background-image:{pattern};border:1px solid #000'></div>"
    )
    left = bar if value < 0 else ""
    right = bar if value > 0 else ""
    return (
        f"<td style='width:7em;text-align:right;border-right:1px solid #000'>{left}</td>"
        f"<td style='width:7em;text-align:left'>{right}</td>"
    )


def contributions_html(state, *, alpha):
    """HTML table of one explorer setting: a diverging bar and the number for each term.

    Parameters
    ----------
    state : dict
        The result of :func:`word_contributions`.
    alpha : float
        The slider value, repeated in the summary.

    Returns
    -------
    str
        An HTML fragment (no scripts, no external resources).
    """
    table = state["contributions"]
    scale = float(np.abs(table.to_numpy()).max())
    styles = {
        model: (
            class_style(j)["color"],
            "none"
            if j == 0
            else "repeating-linear-gradient(45deg,transparent 0 3px,rgba(0,0,0,0.45) 3px 4px)",
        )
        for j, model in enumerate(MODELS)
    }
    head = "".join(f"<th colspan='3' style='padding:0 0.5em'>{html.escape(m)}</th>" for m in MODELS)
    rows = []
    for term, values in table.iterrows():
        cells = "".join(
            _bar_cell(float(values[m]), scale, *styles[m])
            + f"<td style='font-family:monospace;padding:0 0.8em 0 0.3em'>{values[m]:+.2f}</td>"
            for m in MODELS
        )
        rows.append(
            f"<tr><td style='padding-right:0.5em'>{html.escape(str(term))}</td>{cells}</tr>"
        )
    totals = "".join(
        f"<p>{html.escape(m)}: log-odds {state['log_odds'][m]:+.2f}, "
        f"P(spam | x) = {state['posterior_spam'][m]:.3f}</p>"
        for m in MODELS
    )
    unknown = state["unknown"]
    note = (
        f"<p>Not in the vocabulary (ignored): {html.escape(', '.join(unknown))}</p>"
        if unknown
        else ""
    )
    return (
        f"<div><p>alpha = {alpha:.2f}; bars to the right favour spam, to the left ham.</p>"
        f"<table><tr><th>term</th>{head}</tr>{''.join(rows)}</table>{totals}{note}</div>"
    )


def _draw_contributions(ax, table):
    """Grouped horizontal bars: one pair (Bernoulli, multinomial) per term, top to bottom."""
    y = np.arange(len(table.index))
    height = 0.38
    for j, model in enumerate(MODELS):
        style = class_style(j)
        ax.barh(
            y + (j - 0.5) * height,
            table[model].to_numpy(dtype=float),
            height,
            color=style["color"],
            hatch=style["hatch"],
            edgecolor="black",
            linewidth=0.5,
            label=model,
        )
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y, [str(t) for t in table.index])
    ax.invert_yaxis()
    ax.grid(axis="y", visible=False)


def contribution_figure(state, *, title=None):
    """Bar chart of one message's terms of the log-odds of spam, both models side by side.

    Parameters
    ----------
    state : dict
        The result of :func:`word_contributions`.
    title : str, optional

    Returns
    -------
    Figure
    """
    table = state["contributions"]
    fig, axes = new_figure(1, 1, figsize=(6.4, 0.45 * len(table) + 1.4))
    ax = axes[0, 0]
    _draw_contributions(ax, table)
    ax.set_xlabel("contribution to log P(spam | x) - log P(ham | x)")
    ax.legend(loc="lower right")
    if title:
        ax.set_title(title)
    return fig


def contribution_small_multiples(messages=EXAMPLE_MESSAGES, alphas=(0.1, 1.0, 5.0), *, data=None):
    """The explorer's static twin: one panel per message (rows) and smoothing (columns).

    Parameters
    ----------
    messages : sequence of str, length n_messages
    alphas : sequence of float > 0, length n_alphas
    data : DataFrame, optional
        As in :func:`word_contributions`.

    Returns
    -------
    Figure
        A grid of n_messages x n_alphas bar charts; panels in a row share their axes.
    """
    messages = list(messages)
    alphas = [check_real("alpha", a, 0.0, open_low=True) for a in np.atleast_1d(alphas).tolist()]
    if not messages or not alphas:
        raise ValueError("messages and alphas must each hold at least one value")
    data = _messages_data(data)
    states = [[word_contributions(m, a, data=data) for a in alphas] for m in messages]
    n_terms = [len(row[0]["contributions"]) for row in states]
    fig, axes = new_figure(
        len(messages),
        len(alphas),
        figsize=(3.3 * len(alphas) + 1.2, sum(0.32 * n + 1.1 for n in n_terms)),
    )
    # rows differ in their terms; heights follow the number of terms of each row
    fig.get_layout_engine().set(hspace=0.04)
    for i, (message, row) in enumerate(zip(messages, states, strict=True)):
        limit = max(float(np.abs(s["contributions"].to_numpy()).max()) for s in row) * 1.1
        for k, (a, state) in enumerate(zip(alphas, row, strict=True)):
            ax = axes[i, k]
            _draw_contributions(ax, state["contributions"])
            ax.set_xlim(-limit, limit)
            p = state["posterior_spam"]
            ax.set_title(
                f"alpha = {a:g}\nP(spam): B {p['Bernoulli']:.2f}, M {p['multinomial']:.2f}",
                fontsize=9,
            )
            if k > 0:
                ax.set_yticklabels([])
            if i == len(messages) - 1:
                ax.set_xlabel("log-odds contribution")
        axes[i, 0].set_ylabel(f'"{message}"', fontsize=9)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=len(MODELS))
    return fig


def text_explorer(message=EXAMPLE_MESSAGES[0], alpha=1.0, *, data=None):
    """A message box (type one, or pick an example) and a smoothing slider, showing the terms.

    Parameters
    ----------
    message : str, default the first of :data:`EXAMPLE_MESSAGES`
        Starting message.
    alpha : float > 0, default 1.0
        Starting smoothing (0.05 to 5 in steps of 0.05; rounded to a step and clipped).
    data : DataFrame, optional
        As in :func:`word_contributions`.

    Returns
    -------
    ipywidgets.VBox
        The message box, the slider and an HTML panel that each change recomputes.
    """
    import ipywidgets as w

    if not isinstance(message, str):
        raise TypeError(f"message must be a str, got {type(message).__name__}")
    alpha = check_real("alpha", alpha, 0.0, open_low=True)
    alpha = round(round(alpha / ALPHA_STEP) * ALPHA_STEP, 10)
    alpha = min(max(alpha, ALPHA_MIN), ALPHA_MAX)
    data = _messages_data(data)
    style = {"description_width": "9em"}
    layout = w.Layout(width="36em")
    box = w.Combobox(
        value=message,
        options=list(EXAMPLE_MESSAGES),
        ensure_option=False,
        placeholder="type a message",
        description="message",
        continuous_update=False,
        style=style,
        layout=layout,
    )
    slider = w.FloatSlider(
        value=alpha,
        min=ALPHA_MIN,
        max=ALPHA_MAX,
        step=ALPHA_STEP,
        description="smoothing alpha",
        readout_format=".2f",
        continuous_update=True,
        style=style,
        layout=layout,
    )
    panel = w.HTML()

    def update(_change=None):
        panel.value = contributions_html(
            word_contributions(box.value, slider.value, data=data), alpha=slider.value
        )

    box.observe(update, names="value")
    slider.observe(update, names="value")
    update()
    return w.VBox([box, slider, panel])
