// Node networks in files: read from and written to a YAML list of nodes, masses,
// links, groups, surfaces and volume cells (the format: docs/node-network-format.md), and written
// for ParaView as a VTK XML UnstructuredGrid of lines.
//
// The YAML file, in SI units (node indices 0-based):
//   nodes:         [x, y, z] per node (m)
//   mass:          one value for every node, or one per node (kg)
//   link_defaults: {stiffness (N/m), hardening (N/m^3), dashpot (N s/m)} for links that omit them
//   links:         [a, b], or {nodes: [a, b], stiffness, rest_length (m), hardening, dashpot};
//                  rest_length defaults to |X_b - X_a|
//   node_groups:   name -> [node, ...]
//   surfaces:      name -> {triangles: [[a, b, c], ...], quads: [[a, b, c, d], ...]}
//   volume_cells:  {type: tet4 | hex8, stiffness: kappa (Pa; one value or one per cell),
//                   cells: [[...], ...], rest_volume (m^3; one value or one per cell; default:
//                   each cell's volume at the rest positions)}
#pragma once

#include <string>
#include <vector>

#include "softik/mesh_io.hpp"
#include "softik/node_network.hpp"

namespace softik {

/// Reads a node network from a YAML file (the format above). Strict: an unknown or repeated key,
/// a missing required key, a value of the wrong type, a non-finite number, a coordinate that is
/// not three numbers, a node index out of range, and whatever validate(NodeNetwork) refuses are
/// softik::Error (ErrorKind::Input) whose message starts with "<path>:<line>:<column>: <key>: "
/// (or "<path>: " where no single place in the file is at fault) and says how to fix it. A file
/// that cannot be opened is an ErrorKind::Io error naming the path; malformed YAML an Input error
/// naming the path, line and column.
NodeNetwork read_node_network(const std::string& path);

/// Writes `network` in the format of read_node_network, every number in the shortest decimal
/// form that reads back to the same double, so that read_node_network(path) returns a network
/// equal to `network` in every field (rest lengths and rest volumes are written only where they
/// differ from those of the rest positions; links whose stiffness, hardening and dashpot are the
/// most common ones are written as [a, b]). The file is replaced atomically (temporary file, then
/// rename). Throws softik::Error on a network that validate(NodeNetwork) refuses, a group or
/// surface naming a node out of range or holding quadratic triangles, an empty group name, or a
/// file that cannot be written (ErrorKind::Io, naming the path).
void write_node_network(const std::string& path, const NodeNetwork& network);

/// Writes `network` at positions x (3 per node) as a VTK XML UnstructuredGrid (.vtu) that
/// ParaView opens: the nodes as Points at x, one VTK_LINE (type 3) cell per link (in link
/// order), point data "displacement" (x - X, 3 components) and "mass" (kg), then the caller's
/// `point_fields` (num_nodes x components values each, e.g. a force; one named "displacement"
/// or "mass" takes the place of softik's array of that name), and cell data "tension"
/// (the link's elastic tension s = k (l - L) + k3 (l - L)^3, N: fem::link_tension with no
/// extension rate) and "strain" ((l - L) / L). `options` as for write_vtu (default: compressed
/// appended binary; VtuEncoding::Ascii for a text file). Throws softik::Error on sizes that do
/// not match, a link to a node that does not exist or with a rest length <= 0, an x of the wrong
/// size or with NaN/inf entries, a point field of the wrong size, without a name or named like
/// another of the caller's, or a file that cannot be written (naming the path). It does not run
/// the whole validate(NodeNetwork): once per output frame that would double a large network's
/// cost.
void write_network_vtu(const std::string& path, const NodeNetwork& network, const std::vector<Real>& x,
                       const std::vector<VtuField>& point_fields = {}, const VtuOptions& options = {});

}  // namespace softik
