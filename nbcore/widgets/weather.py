"""The weather chapter's explorer: smoothing and the prior against the posterior of one day.

Every explorer is split in two: pure functions that compute what it shows (tested directly
at many settings) and a thin ``*_explorer`` function that wires ipywidgets sliders to them.
In the HTML book no kernel runs, so each explorer also has a static twin computed by the
same pure functions (:func:`weather_posterior_sweep`).
"""

import html
import math
from numbers import Real

import numpy as np
import pandas as pd

__all__ = [
    "WEATHER_TEST_DAY",
    "weather_class_scores",
    "weather_posterior",
    "weather_posterior_sweep",
    "posterior_html",
    "weather_explorer",
]

#: The day the weather chapter classifies: sunny, cool, high humidity, windy.
WEATHER_TEST_DAY = {"outlook": "sunny", "temperature": "cool", "humidity": "high", "windy": True}

# Ranges and steps of the explorer's sliders.
ALPHA_MAX, ALPHA_STEP = 20.0, 0.1
PRIOR_MIN, PRIOR_MAX = 0.01, 0.99


def _check_alpha(alpha):
    if isinstance(alpha, bool) or not isinstance(alpha, Real):
        raise TypeError(f"alpha must be a real number, got {type(alpha).__name__}")
    if not math.isfinite(alpha) or alpha < 0:
        raise ValueError(f"alpha must be a finite number >= 0, got {alpha}")
    return float(alpha)


def _check_prior_yes(prior_yes):
    if isinstance(prior_yes, bool) or not isinstance(prior_yes, Real):
        raise TypeError(f"prior_yes must be a real number, got {type(prior_yes).__name__}")
    if not 0.0 <= prior_yes <= 1.0:
        raise ValueError(f"prior_yes must be a probability in [0, 1], got {prior_yes}")
    return float(prior_yes)


def _weather_data(data):
    if data is None:
        from nbcore.datasets import load_weather

        return load_weather()
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    if "play" not in data.columns or len(data.columns) < 2:
        raise ValueError(
            f"data must have feature columns and a 'play' column, got {list(data.columns)}"
        )
    return data


def weather_class_scores(alpha=0.0, prior_yes=None, *, day=None, data=None):
    """Naive Bayes scores pi_c * prod_d theta_{c d x_d} of one day, for play = yes and no.

    Counts come from the training data; the smoothed category probability of feature d is
    theta_{cdk} = (N_{cdk} + alpha) / (N_c + alpha * K_d), where K_d is the number of
    categories of feature d seen in the data (adding alpha to each of the K_d counts adds
    alpha * K_d to their total).

    Parameters
    ----------
    alpha : float, default 0.0
        Additive smoothing (0 gives the relative frequencies of the tables).
    prior_yes : float in [0, 1], optional
        Prior probability of play = yes; the prior of "no" is ``1 - prior_yes``. By default
        the class frequencies of the data (9/14 for the weather data).
    day : dict, optional
        One value per feature column; default :data:`WEATHER_TEST_DAY`.
    data : DataFrame of shape (n_samples, n_features + 1), optional
        Training records with a ``play`` column; default ``nbcore.datasets.load_weather()``.

    Returns
    -------
    Series of shape (2,)
        Index ``["yes", "no"]``, the joint probabilities p(x, y=c) under the model.
    """
    alpha = _check_alpha(alpha)
    data = _weather_data(data)
    day = dict(WEATHER_TEST_DAY if day is None else day)
    features = [c for c in data.columns if c != "play"]
    if sorted(day) != sorted(features):
        raise ValueError(f"day must give a value for each feature {features}, got {sorted(day)}")
    classes = ["yes", "no"]
    class_count = data["play"].value_counts().reindex(classes, fill_value=0)
    if (class_count == 0).any():
        raise ValueError("data must contain records of both classes, 'yes' and 'no'")
    if prior_yes is None:
        prior = class_count / class_count.sum()
    else:
        p = _check_prior_yes(prior_yes)
        prior = pd.Series([p, 1.0 - p], index=classes)
    scores = prior.astype(float).copy()
    for feature in features:
        n_categories = data[feature].nunique()
        value = day[feature]
        # N_{c d x_d}: records of class c whose feature d equals the day's value.
        matches = data.loc[data[feature] == value, "play"].value_counts()
        matches = matches.reindex(classes, fill_value=0)
        theta = (matches + alpha) / (class_count + alpha * n_categories)
        scores *= theta
    return scores.rename("score")


def weather_posterior(alpha=0.0, prior_yes=None, *, day=None, data=None):
    """Posterior P(play = c | x) of one day, with its scores and the predicted class.

    The pure function behind the chapter's explorer: the sliders call it with their values.

    Parameters
    ----------
    alpha, prior_yes, day, data
        As in :func:`weather_class_scores`.

    Returns
    -------
    dict
        ``"scores"`` and ``"posterior"`` (Series indexed ``["yes", "no"]``), ``"ratio"``
        (score of yes over score of no, ``inf`` when the "no" score is 0) and
        ``"prediction"`` (the class with the larger posterior; "no" on a tie).
    """
    scores = weather_class_scores(alpha, prior_yes, day=day, data=data)
    total = float(scores.sum())
    if total == 0.0:
        raise ValueError(
            "both class scores are 0: with alpha = 0 a value never seen with either class "
            "zeroes every product; choose alpha > 0"
        )
    posterior = (scores / total).rename("posterior")
    ratio = float(scores["yes"] / scores["no"]) if scores["no"] > 0 else math.inf
    prediction = "yes" if posterior["yes"] > posterior["no"] else "no"
    return {"scores": scores, "posterior": posterior, "ratio": ratio, "prediction": prediction}


def weather_posterior_sweep(alphas, priors, *, day=None, data=None):
    """P(play = yes | x) over a grid of smoothing values and priors: the explorer's static twin.

    Parameters
    ----------
    alphas : sequence of float, shape (n_alphas,)
    priors : sequence of float in [0, 1], shape (n_priors,)
    day, data
        As in :func:`weather_class_scores`.

    Returns
    -------
    DataFrame of shape (n_alphas, n_priors)
        Index ``alpha``, one column per prior of "yes", values P(play = yes | x).
    """
    alphas = [_check_alpha(a) for a in np.atleast_1d(alphas).tolist()]
    priors = [_check_prior_yes(p) for p in np.atleast_1d(priors).tolist()]
    if not alphas or not priors:
        raise ValueError("alphas and priors must each hold at least one value")
    data = _weather_data(data)
    table = pd.DataFrame(
        [
            [weather_posterior(a, p, day=day, data=data)["posterior"]["yes"] for p in priors]
            for a in alphas
        ],
        index=pd.Index(alphas, name="alpha"),
        columns=pd.Index(priors, name="prior of yes"),
    )
    return table


def posterior_html(state, *, alpha, prior_yes):
    """HTML summary of one explorer setting: a bar per class and the decision.

    Parameters
    ----------
    state : dict
        The result of :func:`weather_posterior`.
    alpha, prior_yes : float
        The slider values, repeated in the summary.

    Returns
    -------
    str
        An HTML fragment (no scripts, no external resources).
    """
    posterior = state["posterior"]
    rows = []
    for label, colour in (("yes", "#0072B2"), ("no", "#E69F00")):
        p = float(posterior[label])
        rows.append(
            "<tr>"
            f"<td style='padding-right:0.5em'>P(play = {label} | x)</td>"
            f"<td style='width:14em'><div style='background:{colour};height:0.9em;"
            f"width:{100 * p:.1f}%'></div></td>"
            f"<td style='padding-left:0.5em;font-family:monospace'>{p:.4f}</td>"
            "</tr>"
        )
    prediction = html.escape(state["prediction"])
    return (
        f"<div><p>alpha = {alpha:.2f}, prior of yes = {prior_yes:.2f}</p>"
        f"<table>{''.join(rows)}</table>"
        f"<p>Prediction: <b>play = {prediction}</b></p></div>"
    )


def weather_explorer(alpha=0.0, prior_yes=9 / 14, *, day=None, data=None):
    """Sliders for the smoothing alpha and the prior of "yes", showing the test day's posterior.

    Parameters
    ----------
    alpha : float, default 0.0
        Starting value of the smoothing slider (0 to 20 in steps of 0.1; rounded to a step).
    prior_yes : float, default 9/14
        Starting value of the prior slider (0.01 to 0.99 in steps of 0.01; rounded to a
        step, so 9/14 starts at 0.64).
    day, data
        As in :func:`weather_class_scores`.

    Returns
    -------
    ipywidgets.VBox
        The two sliders and an HTML panel that each slider move recomputes.
    """
    import ipywidgets as w

    # Start on the sliders' grids (clipped to their ranges), so that the first panel shows
    # exactly the setting the sliders show, in the notebook and in the static HTML book.
    alpha = min(round(round(_check_alpha(alpha) / ALPHA_STEP) * ALPHA_STEP, 10), ALPHA_MAX)
    prior_yes = min(max(round(_check_prior_yes(prior_yes), 2), PRIOR_MIN), PRIOR_MAX)
    data = _weather_data(data)
    style = {"description_width": "9em"}
    layout = w.Layout(width="30em")
    alpha_slider = w.FloatSlider(
        value=alpha,
        min=0.0,
        max=ALPHA_MAX,
        step=ALPHA_STEP,
        description="smoothing alpha",
        readout_format=".2f",
        continuous_update=True,
        style=style,
        layout=layout,
    )
    prior_slider = w.FloatSlider(
        value=prior_yes,
        min=PRIOR_MIN,
        max=PRIOR_MAX,
        step=0.01,
        description="prior of yes",
        readout_format=".2f",
        continuous_update=True,
        style=style,
        layout=layout,
    )
    panel = w.HTML()

    def update(_change=None):
        a, p = alpha_slider.value, prior_slider.value
        panel.value = posterior_html(
            weather_posterior(a, p, day=day, data=data), alpha=a, prior_yes=p
        )

    alpha_slider.observe(update, names="value")
    prior_slider.observe(update, names="value")
    update()
    return w.VBox([alpha_slider, prior_slider, panel])
