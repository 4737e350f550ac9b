"""The small repo the policy tests lint: an inventory, one native switch and a user policy."""

from conftest import lint_repo

INVENTORY = """
cluster: c
nodes: {count: 2, gpus: 8, gpu: H100-SXM}
fabric: {transport: roce, mtu: 9100}
switches:
  - {name: leaf02, config: leaf02.yaml}
"""
SWITCH = """
switch: leaf02
dscp_to_tc: {26: 3, 48: 6}
pfc:
  priorities: [3]
  watchdog: {enabled: true, detection_ms: 200, restoration_ms: 400, action: drop}
ports:
  - {name: Ethernet0, speed: 400G, mtu: 9216, cable_length: 5}
  - {name: Ethernet4, speed: 400G, mtu: 1500, cable_length: 5}
"""
POLICY = """
rules:
  - id: ORG001
    summary: jumbo frames on every port
    given: $.switches[*].ports.*
    assert: has(self.mtu) && self.mtu >= 9000
    message: "port {self.name} has MTU {self.mtu}, below 9000"
"""


def repo(tmp_path, policy=POLICY, extra=None, select=("ORG", "NL0")):
    files = {"inventory.yaml": INVENTORY, "leaf02.yaml": SWITCH, "org.yaml": policy,
             "netlint.yaml": "policies: [org.yaml]\n"}
    files.update(extra or {})
    return lint_repo(tmp_path, files, select=list(select))
