"""Cases for ``experimental.optim`` shared by scripts/record_experimental_optim.py (MindSpore 2.10's values)
and test_experimental_optim.py: optimizers stepped with fixed gradients, schedulers' learning rates."""

from __future__ import annotations

import numpy as np

F = np.float32
PARAMS = {"w": F([1.0, -2.0, 0.5]), "b": F([0.3])}
GRADS = [
    (F([0.1, -0.2, 0.3]), F([0.5])),
    (F([0.2, 0.1, -0.3]), F([0.4])),
    (F([-0.1, -0.2, 0.05]), F([-0.2])),
    (F([0.3, 0.3, 0.3]), F([0.1])),
]

# name -> (class, keyword arguments, whether the two parameters form two groups with their own lr)
OPTIMIZERS = {
    "adam": ("Adam", {"lr": 0.1}, False),
    "adam_wd_ams": ("Adam", {"lr": 0.1, "weight_decay": 0.1, "amsgrad": True}, False),
    "adamw": ("AdamW", {"lr": 0.1}, False),
    "sgd": ("SGD", {"lr": 0.1}, False),
    "sgd_nesterov": ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}, False),
    "sgd_groups": ("SGD", {"lr": 0.1, "momentum": 0.5}, True),
    "adadelta": ("Adadelta", {}, False),
    "adadelta_wd": ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1}, False),
    "adagrad": ("Adagrad", {"lr": 0.1, "lr_decay": 0.1, "initial_accumulator_value": 0.1}, False),
    "asgd": ("ASGD", {"lr": 0.1, "lambd": 0.01, "t0": 2.0}, False),
    "adamax": ("Adamax", {"lr": 0.1, "weight_decay": 0.05}, False),
    "rmsprop": ("RMSprop", {"lr": 0.01}, False),
    "rmsprop_centered": ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True, "weight_decay": 0.1}, False),
    "rprop": ("Rprop", {"lr": 0.05}, False),
    "radam": ("RAdam", {"lr": 0.1, "betas": (0.5, 0.6)}, False),
    "radam_default": ("RAdam", {"lr": 0.1}, False),
    "nadam": ("NAdam", {"lr": 0.1, "weight_decay": 0.05}, False),
    "nadam_groups": ("NAdam", {"lr": 0.1}, True),
    "adamax_maximize": ("Adamax", {"lr": 0.1, "maximize": True}, False),
    "rprop_maximize": ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (0.01, 0.06), "maximize": True},
                       False),
    "adagrad_maximize": ("Adagrad", {"lr": 0.1, "maximize": True, "weight_decay": 0.1}, True),
    "asgd_maximize": ("ASGD", {"lr": 0.1, "maximize": True, "alpha": 0.5, "weight_decay": 0.1}, True),
    "adamw_groups_ams": ("AdamW", {"lr": 0.1, "amsgrad": True, "maximize": True}, True),
}
STEPS = 12


def lambda_half(epoch: int) -> float:
    """A LambdaLR factor."""
    return 0.5 ** epoch


def lambda_mult(epoch: int) -> float:
    """A MultiplicativeLR factor."""
    return 0.9 if epoch % 2 else 1.0


# name -> (class, keyword arguments after the optimizer); SequentialLR and ReduceLROnPlateau are written out
SCHEDULERS = {
    "step": ("StepLR", {"step_size": 3, "gamma": 0.5}),
    "multistep": ("MultiStepLR", {"milestones": [2, 5, 5, 9], "gamma": 0.5}),
    "constant": ("ConstantLR", {"factor": 0.25, "total_iters": 4}),
    "linear": ("LinearLR", {"start_factor": 0.2, "end_factor": 0.9, "total_iters": 6}),
    "exponential": ("ExponentialLR", {"gamma": 0.8}),
    "polynomial": ("PolynomialLR", {"total_iters": 8, "power": 2.0}),
    "cosine": ("CosineAnnealingLR", {"T_max": 5, "eta_min": 0.01}),
    "lambda": ("LambdaLR", {"lr_lambda": lambda_half}),
    "multiplicative": ("MultiplicativeLR", {"lr_lambda": lambda_mult}),
    "warm_restarts": ("CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2, "eta_min": 0.001}),
    "cyclic": ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3, "step_size_down": 2}),
    "cyclic_tri2": ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 2, "mode": "triangular2"}),
    "cyclic_exp": ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 2, "mode": "exp_range",
                                "gamma": 0.9}),
}
PLATEAU_METRICS = [1.0, 0.9, 0.95, 0.95, 0.96, 0.97, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
