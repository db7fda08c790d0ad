"""DLRM-style hybrid parallelism (``studio dlrm``; Naumov et al. 2019): a small recommendation model trained in
one process and on p rank processes with its embedding tables split between the ranks and its MLPs replicated.

- ``data``: the synthetic clicks (a known structure the model can learn) and their Bayes loss;
- ``model``: the bottom and top MLPs, the tables, the pairwise dot-product interaction;
- ``exchange``: the all-to-all of the looked-up vectors as an autograd function (its backward is the all-to-all of
  their gradients), counting its bytes;
- ``train``: one process's step and a hybrid rank's step, measured (timeline, memory);
- ``rank``: a rank process (``python -m``); ``launch``: the request's checks, the ranks, the result;
- ``check``: the runner of the paper check ``naumov_dlrm_hybrid``.
"""
