"""A program reading the parallel context the way MindSpore's model repository does (``GlobalComm``,
``auto_parallel_context()``'s getters before and after ``set_auto_parallel_context``, ``ConvertModelUtils``
with a non-THOR optimizer), run by scripts/record_parallel_context.py under MindSpore 2.10 and by
tests/compat/test_parallel_context.py under opbuild's alias."""


def run() -> dict:
    """What the program observes, as JSON-able values."""
    import mindspore as ms
    from mindspore import nn
    from mindspore.communication.management import GlobalComm
    from mindspore.parallel._auto_parallel_context import auto_parallel_context
    from mindspore.train.model import ParallelMode
    from mindspore.train.train_thor import ConvertModelUtils

    ctx = auto_parallel_context()

    def getters() -> dict:
        return {name: getattr(ctx, name)() for name in (
            "get_parallel_mode", "get_gradients_mean", "get_device_num", "get_global_rank",
            "get_device_num_is_set", "get_global_rank_is_set", "get_parameter_broadcast_is_set",
            "get_full_batch", "get_enable_parallel_optimizer", "get_pipeline_stages")}

    out = {"global_comm": {k: getattr(GlobalComm, k) for k in ("BACKEND", "WORLD_COMM_GROUP", "INITED",
                                                                "CHECK_ENVS")},
           "same_context": auto_parallel_context() is ctx, "before": getters()}
    ms.set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL, device_num=4, gradients_mean=True)
    out["after"] = getters()
    ms.reset_auto_parallel_context()
    out["reset"] = getters()
    net = nn.Dense(3, 2)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    model = ms.train.Model(net, nn.MSELoss(), opt)
    out["thor_model_is_model"] = ConvertModelUtils.convert_to_thor_model(model, net, nn.MSELoss(), opt) is model
    return out
