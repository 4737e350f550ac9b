#!/bin/bash
export FI_PROVIDER=efa
export NCCL_PROTO=simple
export OFI_NCCL_PROTOCOL=SENDRECV
