"""Known-bad releases (``netlint/data/advisories.yaml``) and the versions a repository pins.

:mod:`netlint.advisories.data` reads the advisories and answers "which ones affect this release";
:mod:`netlint.advisories.pins` finds the pins in a file's text (an NGC image tag, a pip requirement, a
Slurm ``--container-image``, netlint's own ``nccl-version``); the ADV8xx rules join the two.
"""
