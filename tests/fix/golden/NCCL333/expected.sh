#!/bin/bash
export NCCL_DEBUG=WARN
export HSA_FORCE_FINE_GRAIN_PCIE=1
