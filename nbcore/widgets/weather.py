"""The weather chapter's explorers: one day's posterior under smoothing and the prior, and the
numeric weather day. Every score comes from nbcore in log space: a fitted CategoricalNB, and
:func:`~nbcore.numerics.gaussian_log_density` with :func:`~nbcore.numerics.categorical_log_score`.
"""

import html
from functools import partial

import numpy as np
import pandas as pd

from nbcore import CategoricalNB
from nbcore._validation import check_int, check_probability, check_real
from nbcore.datasets import load_weather, load_weather_numeric
from nbcore.numerics import categorical_log_score, gaussian_log_density, logsumexp
from nbcore.plotting import OKABE_ITO
from nbcore.widgets._explorer import Choice, Slider, Toggle, explorer

__all__ = [
    "WEATHER_TEST_DAY",
    "CONTROLS",
    "weather_posterior",
    "weather_posterior_sweep",
    "weather_panel",
    "weather_explorer",
    "WEATHER_NUMERIC_TEST_DAY",
    "NUMERIC_CONTROLS",
    "gaussian_density",
    "numeric_class_parameters",
    "numeric_day_factors",
    "numeric_day_posterior",
    "numeric_posterior_grid",
    "numeric_weather_panel",
    "numeric_weather_explorer",
    "label_encode",
    "leave_one_out_predictions",
]

#: The day the weather chapter classifies: sunny, cool, high humidity, windy.
WEATHER_TEST_DAY = {"outlook": "sunny", "temperature": "cool", "humidity": "high", "windy": True}

#: The numeric weather day the chapter classifies: sunny, 66 degrees F, humidity 90, windy.
WEATHER_NUMERIC_TEST_DAY = {"outlook": "sunny", "temperature": 66, "humidity": 90, "windy": True}

# The Gaussian columns of the numeric weather data, and the classes in display order.
NUMERIC_FEATURES, CLASSES = ("temperature", "humidity"), ("yes", "no")

#: The explorer's controls. The prior slider moves in 28ths, so that the data's prior
#: 9/14 = 18/28 is one of its settings: it starts exactly where chapter 6's table and text are.
CONTROLS = (
    Slider("alpha", "smoothing alpha", 0.0, 20.0, 0.1),
    Slider("prior_yes", "prior of yes", 1 / 28, 27 / 28, 1 / 28, fmt=".3f"),
)


def _weather_data(data):
    """The training records: feature columns and ``play``, holding the classes yes and no."""
    if data is None:
        return load_weather()
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    if "play" not in data.columns or len(data.columns) < 2:
        raise ValueError(f"data must have features and a 'play' column, got {list(data.columns)}")
    if set(data["play"]) != set(CLASSES):
        raise ValueError("data must contain records of both classes, 'yes' and 'no', only")
    return data


def _day(day, default, data):
    """The day as a one-row DataFrame in the data's column order, checked."""
    day = dict(default if day is None else day)
    features = [c for c in data.columns if c != "play"]
    if sorted(day) != sorted(features):
        raise ValueError(f"day must give a value for each feature {features}, got {sorted(day)}")
    return pd.DataFrame([day])[features]


def weather_posterior(alpha=0.0, prior_yes=None, *, day=None, data=None):
    """Posterior P(play = c | x) of one day under nbcore's CategoricalNB, and its scores.

    Parameters
    ----------
    alpha : float >= 0, default 0.0
        Additive smoothing: theta_cdk = (N_cdk + alpha) / (N_c + alpha K_d), K_d the number of
        categories of feature d seen in the data (0 gives the relative frequencies).
    prior_yes : float in [0, 1], optional
        pi_yes (pi_no = 1 - pi_yes); default the class frequency of the data (9/14).
    day, data : dict, DataFrame, optional
        One value per feature (default :data:`WEATHER_TEST_DAY`); the training records with a
        ``play`` column (default ``nbcore.datasets.load_weather()``).

    Returns
    -------
    dict
        ``"scores"`` (p(x, y = c), the exponentials of the joint log scores) and
        ``"posterior"`` (Series indexed ``["yes", "no"]``), ``"ratio"`` (score of yes over
        score of no) and ``"prediction"`` (the class with the larger posterior; "no" on a tie).
    """
    alpha = check_real("alpha", alpha, 0.0)
    prior = None if prior_yes is None else check_probability("prior_yes", prior_yes)
    data = _weather_data(data)
    day = _day(day, WEATHER_TEST_DAY, data)
    # classes_ are sorted, ["no", "yes"]; without a prior, pi_c = N_c / N
    model = CategoricalNB(alpha=alpha, class_prior=None if prior is None else [1 - prior, prior])
    with np.errstate(divide="ignore"):  # a prior of 0 has log -inf
        b = model.fit(data[day.columns], data["play"]).predict_joint_log_proba(day)[0]
    b = pd.Series(b, index=model.classes_).loc[list(CLASSES)]  # b_c = log p(x, y = c)
    if np.isneginf(b).all():
        raise ValueError("both class scores are 0 (alpha = 0 and unseen values); choose alpha > 0")
    posterior = np.exp(b - logsumexp(b.to_numpy())).rename("posterior")
    with np.errstate(over="ignore"):
        ratio = float(np.exp(b["yes"] - b["no"]))
    prediction = "yes" if posterior["yes"] > posterior["no"] else "no"
    scores = np.exp(b).rename("score")
    return {"scores": scores, "posterior": posterior, "ratio": ratio, "prediction": prediction}


def weather_posterior_sweep(alphas, priors, *, day=None, data=None):
    """P(play = yes | x) over a grid of alphas (rows) and priors of yes (columns), the static
    twin; ``day`` and ``data`` as in :func:`weather_posterior`."""
    alphas = [check_real("alpha", a, 0.0) for a in np.atleast_1d(alphas).tolist()]
    priors = [check_probability("prior_yes", p) for p in np.atleast_1d(priors).tolist()]
    if not alphas or not priors:
        raise ValueError("alphas and priors must each hold at least one value")
    data = _weather_data(data)
    table = [
        [weather_posterior(a, p, day=day, data=data)["posterior"]["yes"] for p in priors]
        for a in alphas
    ]
    return pd.DataFrame(table, alphas, priors).rename_axis(index="alpha", columns="prior of yes")


def _posterior_html(posterior, heading):
    """A bar and the value of P(play = c | x) for each class, under a heading, and the decision."""
    rows = []
    for label, colour in (("yes", OKABE_ITO["blue"]), ("no", OKABE_ITO["orange"])):
        p = float(posterior[label])
        rows.append(
            f"<tr><td style='padding-right:0.5em'>P(play = {label} | x)</td>"
            f"<td style='width:14em'><div style='background:{colour};height:0.9em;"
            f"width:{100 * p:.1f}%'></div></td>"
            f"<td style='padding-left:0.5em;font-family:monospace'>{p:.4f}</td></tr>"
        )
    prediction = "yes" if posterior["yes"] > posterior["no"] else "no"
    return (
        f"<div><p>{html.escape(heading)}</p><table>{''.join(rows)}</table>"
        f"<p>Prediction: <b>play = {prediction}</b></p></div>"
    )


def weather_panel(alpha, prior_yes, day=None, data=None):
    """The explorer's panel at one setting: the bars of :func:`weather_posterior`, as HTML."""
    posterior = weather_posterior(alpha, prior_yes, day=day, data=data)["posterior"]
    return _posterior_html(posterior, f"alpha = {alpha:.2f}, prior of yes = {prior_yes:.3f}")


def weather_explorer(alpha=0.0, prior_yes=9 / 14, *, day=None, data=None):
    """Sliders for alpha (0 to 20) and the prior of yes (in 28ths) over :func:`weather_panel`;
    ``day`` and ``data`` as in :func:`weather_posterior`. Returns an ipywidgets VBox."""
    show = partial(weather_panel, day=day, data=_weather_data(data))
    return explorer(CONTROLS, show, alpha=alpha, prior_yes=prior_yes)


def _numeric_data(data):
    if data is None:
        return load_weather_numeric()
    data = _weather_data(data)
    if not set(NUMERIC_FEATURES) <= set(data.columns):
        raise ValueError(f"data must have the numeric columns {list(NUMERIC_FEATURES)}")
    return data


def gaussian_density(x, mu, sigma):
    """Normal density N(x; mu, sigma^2), the exponential of nbcore's gaussian_log_density.

    ``x``, ``mu`` and ``sigma`` (standard deviations > 0, not variances) broadcast together;
    returns a float or an ndarray of their broadcast shape.
    """
    sigma = np.asarray(sigma, dtype=float)
    if np.any(~np.isfinite(sigma)) or np.any(sigma <= 0):
        raise ValueError(f"sigma must be finite and > 0, got {sigma}")
    x, mu, sigma = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(mu, float), sigma)
    density = np.full(x.shape, np.nan)  # a NaN mean gives NaN, as the formula would
    for m, s in set(zip(mu.ravel().tolist(), sigma.ravel().tolist(), strict=True)):
        at = (mu == m) & (sigma == s)  # one class of one feature: N(m, s^2)
        log_p = gaussian_log_density(x[at][:, None], np.array([[m]]), np.array([[s * s]]))
        density[at] = np.exp(log_p[:, 0])
    return float(density) if density.ndim == 0 else density


def numeric_class_parameters(ddof=0, *, data=None):
    """Per-class mean and standard deviation of temperature and humidity, a DataFrame.

    Index ``["yes", "no"]``; columns ``N_c`` and (feature, "mean" / "std"). The standard
    deviation divides by N_c - ``ddof``: 0 is maximum likelihood (nbcore's GaussianNB), 1 the
    sample standard deviation Witten & Frank print. ``data`` has numeric ``temperature`` and
    ``humidity`` and a ``play`` column (default ``nbcore.datasets.load_weather_numeric()``).
    """
    ddof = check_int("ddof", ddof, 0, 1)
    data = _numeric_data(data)
    rows = {}
    for c in CLASSES:
        group = data.loc[data["play"] == c, list(NUMERIC_FEATURES)].astype(float)
        if len(group) <= ddof:
            raise ValueError(f"class {c!r} needs more than {ddof} records, got {len(group)}")
        row = {("N_c", ""): len(group)}
        for feature in NUMERIC_FEATURES:
            values = group[feature].to_numpy()
            row[(feature, "mean")] = mu = values.mean()
            row[(feature, "std")] = np.sqrt(((values - mu) ** 2).sum() / (len(values) - ddof))
        rows[c] = row
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    table.index.name = "play"
    return table


def _numeric_log_factors(day, ddof, data):
    """The log of every factor of p(x, y = c), one row per class, from nbcore's numerics."""
    data = _numeric_data(data)
    day = _day(day, WEATHER_NUMERIC_TEST_DAY, data).iloc[0]
    parameters = numeric_class_parameters(ddof, data=data)
    labels = [f for f in day.index if f not in NUMERIC_FEATURES]
    # relative frequencies N_cdk / N_c and N_c / N: a CategoricalNB with alpha = 0
    model = CategoricalNB(alpha=0).fit(data[labels], data["play"])
    rows = [list(model.classes_).index(c) for c in CLASSES]
    logs = {"prior": model.class_log_prior_[rows]}
    for feature, value in day.items():
        if feature in NUMERIC_FEATURES:
            mean, std = (parameters[(feature, k)].to_numpy()[:, None] for k in ("mean", "std"))
            logs[feature] = gaussian_log_density(np.array([[float(value)]]), mean, std**2)[0]
            continue
        d, categories = labels.index(feature), list(model.categories_[labels.index(feature)])
        if value not in categories:
            raise ValueError(f"day[{feature!r}] must be one of {categories}, got {value!r}")
        code = np.array([[categories.index(value)]])
        logs[feature] = categorical_log_score(code, [model.feature_log_prob_[d]])[0, rows]
    return pd.DataFrame(logs, index=pd.Index(CLASSES, name="play"))


def numeric_day_factors(day=None, ddof=0, *, data=None):
    """Every factor of pi_c * f(temperature) * f(humidity) * P(outlook) * P(windy), per class.

    Gaussian densities with the class's mean and standard deviation (``ddof`` and ``data`` as
    in :func:`numeric_class_parameters`), and relative frequencies within the class (no
    smoothing), as in Witten & Frank's worked example, for ``day`` (default
    :data:`WEATHER_NUMERIC_TEST_DAY`). Returns a DataFrame indexed ``["yes", "no"]``:
    ``prior``, one column per feature, and ``score`` = exp(sum of the factors' logarithms).
    """
    logs = _numeric_log_factors(day, ddof, data)
    return np.exp(logs.assign(score=logs.sum(axis=1)))


def numeric_day_posterior(day=None, ddof=0, *, data=None):
    """P(play = c | x) of one numeric day, a Series indexed ``["yes", "no"]``: the log scores
    of :func:`numeric_day_factors` normalised with nbcore's logsumexp."""
    b = _numeric_log_factors(day, ddof, data).sum(axis=1)
    if np.isneginf(b).all():
        raise ValueError("both class scores are 0: the day has a value never seen in either class")
    return np.exp(b - logsumexp(b.to_numpy())).rename("posterior")


def numeric_posterior_grid(
    temperatures, humidities, *, outlook="sunny", windy=True, ddof=0, data=None
):
    """P(play = yes | x) on a grid of humidities (rows) and temperatures (columns), the static
    twin, at fixed ``outlook`` and ``windy``; ``ddof``, ``data`` as in :func:`numeric_day_factors`.
    """
    temperatures = np.atleast_1d(np.asarray(temperatures, dtype=float)).tolist()
    humidities = np.atleast_1d(np.asarray(humidities, dtype=float)).tolist()
    if not temperatures or not humidities:
        raise ValueError("temperatures and humidities must each hold at least one value")
    data = _numeric_data(data)
    day = {"outlook": outlook, "windy": windy}
    table = [
        numeric_day_posterior(day | {"temperature": t, "humidity": h}, ddof, data=data)["yes"]
        for h in humidities
        for t in temperatures
    ]
    table = pd.DataFrame(np.reshape(table, (len(humidities), -1)), humidities, temperatures)
    return table.rename_axis(index="humidity", columns="temperature")


def numeric_weather_panel(temperature, humidity, outlook, windy, sample_std, data=None):
    """The numeric explorer's panel at one setting: the posterior of the day, as HTML."""
    day = {"outlook": outlook, "temperature": temperature, "humidity": humidity, "windy": windy}
    posterior = numeric_day_posterior(day, int(sample_std), data=data)
    convention = "1/(N_c - 1) (sample)" if sample_std else "1/N_c (maximum likelihood)"
    heading = f"outlook = {outlook}, temperature = {temperature:g}, humidity = {humidity:g}, "
    return _posterior_html(posterior, heading + f"windy = {windy}; standard deviation {convention}")


#: The numeric explorer's controls: the day's four values and the standard deviation convention.
NUMERIC_CONTROLS = (
    Slider("temperature", "temperature (F)", 55, 95, 1, integer=True),
    Slider("humidity", "humidity (%)", 55, 100, 1, integer=True),
    Choice("outlook", "outlook", ("overcast", "rainy", "sunny")),
    Toggle("windy", "windy", off="False", on="True"),
    Toggle("sample_std", "std divides by", off="1/N_c (MLE)", on="1/(N_c - 1)"),
)


def numeric_weather_explorer(day=None, ddof=0, *, data=None):
    """Sliders for temperature and humidity, outlook, windy and the std convention over
    :func:`numeric_weather_panel`, starting at ``day`` and ``ddof``. Returns a VBox."""
    day = dict(WEATHER_NUMERIC_TEST_DAY if day is None else day)
    sample_std = check_int("ddof", ddof, 0, 1) == 1
    show = partial(numeric_weather_panel, data=_numeric_data(data))
    return explorer(NUMERIC_CONTROLS, show, **day, sample_std=sample_std)


def label_encode(data, orders):
    """A copy of ``data`` with each column of ``orders`` (column -> its categories in order)
    replaced by the codes 0, 1, 2, ... of that order; the other columns unchanged."""
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    encoded = data.copy()
    for column, order in orders.items():
        if column not in data.columns:
            raise ValueError(f"orders names a column {column!r} that data does not have")
        codes = {value: code for code, value in enumerate(order)}
        unknown = sorted({str(v) for v in data[column]} - {str(v) for v in codes})
        if unknown or len(codes) != len(order):
            message = f"missing {unknown}, got {list(order)}"
            raise ValueError(f"orders[{column!r}] must list each category once; {message}")
        encoded[column] = data[column].map(codes).astype(int)
    return encoded


def leave_one_out_predictions(make_model, X, y):
    """Predict each record of X (n_samples, n_features) with a model fitted on the others.

    ``make_model()`` returns a fresh estimator (for example ``lambda: CategoricalNB(alpha=1)``);
    returns an ndarray of shape (n_samples,).
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
