"""NIC QoS / DCQCN helpers: the parameter table (params), the builder the NIC loaders share (build),
located tokens of text dumps (text) and the join of NIC files to inventory node groups (join)."""
