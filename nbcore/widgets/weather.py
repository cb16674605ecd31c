"""The weather chapter's explorer: smoothing and the prior against the posterior of one day.

Every explorer is split in two: pure functions that compute what it shows (tested directly
at many settings) and a thin ``*_explorer`` function that wires ipywidgets sliders to them.
In the HTML book no kernel runs, so each explorer also has a static twin computed by the
same pure functions (:func:`weather_posterior_sweep`).
"""

import html
import math

import numpy as np
import pandas as pd

from nbcore._validation import check_probability, check_real
from nbcore.plotting import OKABE_ITO

__all__ = [
    "WEATHER_TEST_DAY",
    "weather_class_scores",
    "weather_posterior",
    "weather_posterior_sweep",
    "posterior_html",
    "weather_explorer",
    "WEATHER_NUMERIC_TEST_DAY",
    "gaussian_density",
    "numeric_class_parameters",
    "numeric_day_factors",
    "numeric_day_posterior",
    "numeric_posterior_grid",
    "numeric_weather_explorer",
    "label_encode",
    "leave_one_out_predictions",
]

#: The day the weather chapter classifies: sunny, cool, high humidity, windy.
WEATHER_TEST_DAY = {"outlook": "sunny", "temperature": "cool", "humidity": "high", "windy": True}

#: The numeric weather day the chapter classifies: sunny, 66 degrees F, humidity 90, windy.
WEATHER_NUMERIC_TEST_DAY = {"outlook": "sunny", "temperature": 66, "humidity": 90, "windy": True}

# The Gaussian columns of the numeric weather data, and the classes in display order.
NUMERIC_FEATURES = ("temperature", "humidity")
CLASSES = ("yes", "no")

# Ranges and steps of the explorer's sliders.
ALPHA_MAX, ALPHA_STEP = 20.0, 0.1
# The prior slider moves in 28ths, so that the data's prior 9/14 = 18/28 is one of its
# settings: the explorer starts exactly where the table and the text of chapter 6 are.
PRIOR_STEPS = 28
PRIOR_MIN, PRIOR_MAX = 1 / PRIOR_STEPS, (PRIOR_STEPS - 1) / PRIOR_STEPS


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
    alpha = check_real("alpha", alpha, 0.0)
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
        p = check_probability("prior_yes", prior_yes)
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
    alphas = [check_real("alpha", a, 0.0) for a in np.atleast_1d(alphas).tolist()]
    priors = [check_probability("prior_yes", p) for p in np.atleast_1d(priors).tolist()]
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


def _posterior_rows(posterior):
    """Table rows for P(play = yes | x) and P(play = no | x): a label, a bar and the value."""
    rows = []
    for label, colour in (("yes", OKABE_ITO["blue"]), ("no", OKABE_ITO["orange"])):
        p = float(posterior[label])
        rows.append(
            "<tr>"
            f"<td style='padding-right:0.5em'>P(play = {label} | x)</td>"
            f"<td style='width:14em'><div style='background:{colour};height:0.9em;"
            f"width:{100 * p:.1f}%'></div></td>"
            f"<td style='padding-left:0.5em;font-family:monospace'>{p:.4f}</td>"
            "</tr>"
        )
    return rows


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
    rows = _posterior_rows(posterior)
    prediction = html.escape(state["prediction"])
    return (
        f"<div><p>alpha = {alpha:.2f}, prior of yes = {prior_yes:.3f}</p>"
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
        Starting value of the prior slider (1/28 to 27/28 in steps of 1/28; rounded to a
        step, so the data's prior 9/14 = 18/28 starts exactly).
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
    alpha = check_real("alpha", alpha, 0.0)
    prior_yes = check_probability("prior_yes", prior_yes)
    alpha = min(round(round(alpha / ALPHA_STEP) * ALPHA_STEP, 10), ALPHA_MAX)
    prior_yes = min(max(round(prior_yes * PRIOR_STEPS) / PRIOR_STEPS, PRIOR_MIN), PRIOR_MAX)
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
        step=1 / PRIOR_STEPS,
        description="prior of yes",
        readout_format=".3f",
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


# --------------------------------------------------------------------- the numeric weather


def _check_ddof(ddof):
    if isinstance(ddof, bool) or not isinstance(ddof, int) or ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 (divide by N_c) or 1 (divide by N_c - 1), got {ddof!r}")
    return ddof


def _numeric_data(data):
    if data is None:
        from nbcore.datasets import load_weather_numeric

        return load_weather_numeric()
    data = _weather_data(data)
    missing = [f for f in NUMERIC_FEATURES if f not in data.columns]
    if missing:
        raise ValueError(f"data must have the numeric columns {list(NUMERIC_FEATURES)}")
    return data


def gaussian_density(x, mu, sigma):
    """Normal density N(x; mu, sigma^2) = exp(-(x - mu)^2 / (2 sigma^2)) / (sqrt(2 pi) sigma).

    Parameters
    ----------
    x, mu : float or array-like
        Points and means (broadcast together).
    sigma : float or array-like, > 0
        Standard deviations (not variances).

    Returns
    -------
    float or ndarray
        The densities, with the broadcast shape of the inputs.
    """
    sigma = np.asarray(sigma, dtype=float)
    if np.any(~np.isfinite(sigma)) or np.any(sigma <= 0):
        raise ValueError(f"sigma must be finite and > 0, got {sigma}")
    z = (np.asarray(x, dtype=float) - np.asarray(mu, dtype=float)) / sigma
    density = np.exp(-0.5 * z**2) / (math.sqrt(2 * math.pi) * sigma)
    return float(density) if density.ndim == 0 else density


def numeric_class_parameters(ddof=0, *, data=None):
    """Per-class mean and standard deviation of temperature and humidity.

    The standard deviation is sqrt(sum_i (x_i - mu_cd)^2 / (N_c - ddof)) over the N_c
    records of class c: ``ddof=0`` is the maximum-likelihood estimate (nbcore and
    scikit-learn), ``ddof=1`` the sample standard deviation.

    Parameters
    ----------
    ddof : {0, 1}, default 0
    data : DataFrame, optional
        Records with numeric ``temperature`` and ``humidity`` and a ``play`` column; default
        ``nbcore.datasets.load_weather_numeric()``.

    Returns
    -------
    DataFrame of shape (2, 5)
        Index ``["yes", "no"]``; columns ``N_c`` and (feature, "mean" / "std") pairs.
    """
    ddof = _check_ddof(ddof)
    data = _numeric_data(data)
    rows = {}
    for c in CLASSES:
        group = data.loc[data["play"] == c, list(NUMERIC_FEATURES)].astype(float)
        if len(group) <= ddof:
            raise ValueError(f"class {c!r} needs more than {ddof} records, got {len(group)}")
        row = {("N_c", ""): len(group)}
        for feature in NUMERIC_FEATURES:
            values = group[feature].to_numpy()
            mu = values.mean()
            row[(feature, "mean")] = mu
            row[(feature, "std")] = math.sqrt(((values - mu) ** 2).sum() / (len(values) - ddof))
        rows[c] = row
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    table.index.name = "play"
    return table


def numeric_day_factors(day=None, ddof=0, *, data=None):
    """Every factor of pi_c * f(temperature) * f(humidity) * P(outlook) * P(windy), per class.

    Temperature and humidity get Gaussian densities with the class's mean and standard
    deviation (see :func:`numeric_class_parameters`); outlook and windy get their relative
    frequencies within the class (no smoothing), as in the worked example of Witten & Frank.

    Parameters
    ----------
    day : dict, optional
        Values of outlook, temperature, humidity and windy; default
        :data:`WEATHER_NUMERIC_TEST_DAY`.
    ddof : {0, 1}, default 0
        Standard deviation convention: 0 divides by N_c (maximum likelihood), 1 by N_c - 1.
    data : DataFrame, optional
        As in :func:`numeric_class_parameters`.

    Returns
    -------
    DataFrame of shape (2, 6)
        Index ``["yes", "no"]``; columns ``prior``, one per feature, and ``score`` (the
        product of the other columns, the joint density p(x, y = c)).
    """
    data = _numeric_data(data)
    day = dict(WEATHER_NUMERIC_TEST_DAY if day is None else day)
    features = [c for c in data.columns if c != "play"]
    if sorted(day) != sorted(features):
        raise ValueError(f"day must give a value for each feature {features}, got {sorted(day)}")
    parameters = numeric_class_parameters(ddof, data=data)
    n = len(data)
    rows = {}
    for c in CLASSES:
        group = data[data["play"] == c]
        row = {"prior": len(group) / n}
        for feature in features:
            if feature in NUMERIC_FEATURES:
                mu = parameters.loc[c, (feature, "mean")]
                sigma = parameters.loc[c, (feature, "std")]
                row[feature] = gaussian_density(float(day[feature]), mu, sigma)
            else:  # relative frequency N_{c d x_d} / N_c
                row[feature] = float((group[feature] == day[feature]).mean())
        row["score"] = math.prod(row.values())
        rows[c] = row
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "play"
    return table


def numeric_day_posterior(day=None, ddof=0, *, data=None):
    """P(play = c | x) for one numeric weather day: the scores of :func:`numeric_day_factors`
    divided by their sum.

    Returns
    -------
    Series of shape (2,)
        Index ``["yes", "no"]``.
    """
    scores = numeric_day_factors(day, ddof, data=data)["score"]
    total = float(scores.sum())
    if total == 0.0:
        raise ValueError("both class scores are 0: the day has a value never seen in either class")
    return (scores / total).rename("posterior")


def numeric_posterior_grid(
    temperatures, humidities, *, outlook="sunny", windy=True, ddof=0, data=None
):
    """P(play = yes | x) over a grid of temperatures and humidities: the explorer's static twin.

    Parameters
    ----------
    temperatures : sequence of float, shape (n_temperatures,)
    humidities : sequence of float, shape (n_humidities,)
    outlook, windy
        The day's other two values, held fixed.
    ddof, data
        As in :func:`numeric_day_factors`.

    Returns
    -------
    DataFrame of shape (n_humidities, n_temperatures)
        Index ``humidity``, columns ``temperature``.
    """
    temperatures = np.atleast_1d(np.asarray(temperatures, dtype=float)).tolist()
    humidities = np.atleast_1d(np.asarray(humidities, dtype=float)).tolist()
    if not temperatures or not humidities:
        raise ValueError("temperatures and humidities must each hold at least one value")
    data = _numeric_data(data)
    table = [
        [
            numeric_day_posterior(
                {"outlook": outlook, "temperature": t, "humidity": h, "windy": windy},
                ddof,
                data=data,
            )["yes"]
            for t in temperatures
        ]
        for h in humidities
    ]
    return pd.DataFrame(
        table,
        index=pd.Index(humidities, name="humidity"),
        columns=pd.Index(temperatures, name="temperature"),
    )


def _numeric_html(posterior, day, ddof):
    rows = _posterior_rows(posterior)
    prediction = "yes" if posterior["yes"] > posterior["no"] else "no"
    convention = "1/N_c (maximum likelihood)" if ddof == 0 else "1/(N_c - 1) (sample)"
    described = html.escape(
        f"outlook = {day['outlook']}, temperature = {day['temperature']:g}, "
        f"humidity = {day['humidity']:g}, windy = {day['windy']}"
    )
    return (
        f"<div><p>{described}; standard deviation {html.escape(convention)}</p>"
        f"<table>{''.join(rows)}</table>"
        f"<p>Prediction: <b>play = {prediction}</b></p></div>"
    )


def numeric_weather_explorer(day=None, ddof=0, *, data=None):
    """Sliders for temperature and humidity, a choice of outlook, windy and the std convention.

    Parameters
    ----------
    day : dict, optional
        The starting day; default :data:`WEATHER_NUMERIC_TEST_DAY`.
    ddof : {0, 1}, default 0
        The starting standard deviation convention.
    data : DataFrame, optional
        As in :func:`numeric_class_parameters`.

    Returns
    -------
    ipywidgets.VBox
        The controls and an HTML panel that each change recomputes with
        :func:`numeric_day_posterior`.
    """
    import ipywidgets as w

    data = _numeric_data(data)
    day = dict(WEATHER_NUMERIC_TEST_DAY if day is None else day)
    ddof = _check_ddof(ddof)
    style = {"description_width": "9em"}
    layout = w.Layout(width="30em")
    temperature = w.IntSlider(
        value=int(day["temperature"]),
        min=55,
        max=95,
        description="temperature (F)",
        style=style,
        layout=layout,
    )
    humidity = w.IntSlider(
        value=int(day["humidity"]),
        min=55,
        max=100,
        description="humidity (%)",
        style=style,
        layout=layout,
    )
    outlook = w.Dropdown(
        options=sorted(data["outlook"].unique()),
        value=day["outlook"],
        description="outlook",
        style=style,
    )
    windy = w.Checkbox(value=bool(day["windy"]), description="windy")
    convention = w.ToggleButtons(
        options=[("1/N_c (MLE)", 0), ("1/(N_c - 1)", 1)],
        value=ddof,
        description="std divides by",
        style=style,
    )
    panel = w.HTML()

    def update(_change=None):
        current = {
            "outlook": outlook.value,
            "temperature": temperature.value,
            "humidity": humidity.value,
            "windy": windy.value,
        }
        posterior = numeric_day_posterior(current, convention.value, data=data)
        panel.value = _numeric_html(posterior, current, convention.value)

    for control in (temperature, humidity, outlook, windy, convention):
        control.observe(update, names="value")
    update()
    return w.VBox([temperature, humidity, outlook, windy, convention, panel])


# ------------------------------------------------------------- codes are not measurements


def label_encode(data, orders):
    """Replace each listed column's categories by the integer codes 0, 1, 2, ... of an order.

    Parameters
    ----------
    data : DataFrame of shape (n_samples, n_columns)
    orders : dict of str to sequence
        For each column to encode, its categories in the order that receives codes 0, 1, ...

    Returns
    -------
    DataFrame of shape (n_samples, n_columns)
        A copy with the listed columns as integer codes, the others unchanged.
    """
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    encoded = data.copy()
    for column, order in orders.items():
        if column not in data.columns:
            raise ValueError(f"orders names a column {column!r} that data does not have")
        codes = {value: code for code, value in enumerate(order)}
        unknown = sorted({str(v) for v in data[column]} - {str(v) for v in codes})
        if unknown or len(codes) != len(order):
            raise ValueError(
                f"orders[{column!r}] must list each category of the column once; "
                f"missing {unknown}, got {list(order)}"
            )
        encoded[column] = data[column].map(codes).astype(int)
    return encoded


def leave_one_out_predictions(make_model, X, y):
    """Predict each record with a model fitted on all the other records.

    Parameters
    ----------
    make_model : callable of no argument
        Returns a fresh, unfitted estimator (for example ``lambda: CategoricalNB(alpha=1)``).
    X : DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)

    Returns
    -------
    ndarray of shape (n_samples,)
        The prediction for record i of the model fitted without record i.
    """
    if not callable(make_model):
        raise TypeError(f"make_model must be a callable returning an estimator, got {make_model!r}")
    X = pd.DataFrame(X).reset_index(drop=True)
    y = pd.Series(np.asarray(y))
    if len(X) != len(y) or len(X) < 2:
        raise ValueError(
            f"X and y must hold the same number (at least 2) of records, got {len(X)} and {len(y)}"
        )
    predictions = []
    for i in range(len(X)):
        keep = np.arange(len(X)) != i
        model = make_model().fit(X[keep], y[keep])
        predictions.append(model.predict(X.iloc[[i]])[0])
    return np.asarray(predictions)
