"""Counts -> pass@k / pass^k estimates: closed-form estimators and the statistical modes."""

from agenteval.statistical.estimators import (
    beta_interval,
    beta_pass_at_k_mean,
    beta_pass_pow_k_mean,
    clopper_pearson_interval,
    pass_at_k,
    pass_at_k_unbiased,
    pass_pow_k,
    pass_pow_k_unbiased,
    wilson_interval,
)
from agenteval.statistical.modes import BayesianMode, FrequentistMode, PassEstimate, StatisticalMode

__all__ = [
    "BayesianMode",
    "FrequentistMode",
    "PassEstimate",
    "StatisticalMode",
    "beta_interval",
    "beta_pass_at_k_mean",
    "beta_pass_pow_k_mean",
    "clopper_pearson_interval",
    "pass_at_k",
    "pass_at_k_unbiased",
    "pass_pow_k",
    "pass_pow_k_unbiased",
    "wilson_interval",
]
