# The core's floor plan (docs/architecture.md), read by the build (CMakeLists.txt: one object
# library per folder, each linked to the folders it uses) and by the layering test
# (tests/check_layering.cmake): one list, so the two cannot disagree.
#
# SOFTIK_LAYERS: the core's folders under host/, each after every folder it uses.
# SOFTIK_LAYER_USES_<folder>: the folders whose headers it may include besides its own. The build
# makes only their private headers (host/<folder>/) visible to its sources, so a wrong include
# fails to compile in the file that makes it.
# SOFTIK_LAYER_PUBLIC_<folder>: the public headers (include/softik/, without .hpp) of the folder's
# concept. A source of a folder, or a public header of its concept, may include the public headers
# of its own concept, of the concepts it uses, and the shared ones (SOFTIK_LAYER_PUBLIC_common:
# configuration, errors, materials, progress, the backend choice, and fem/ and exec/): the layering
# test checks these arrows too, which pass through no private header.
set(SOFTIK_LAYERS exec mesh assembly linear loads network io qp contact solvers inverse dynamics scene batch)

set(SOFTIK_LAYER_USES_exec "")
set(SOFTIK_LAYER_USES_mesh "")
set(SOFTIK_LAYER_USES_assembly "exec;mesh")
set(SOFTIK_LAYER_USES_linear "exec;assembly;mesh")
set(SOFTIK_LAYER_USES_loads "exec;linear;assembly;mesh")
set(SOFTIK_LAYER_USES_network "exec;loads;linear;assembly;mesh")
set(SOFTIK_LAYER_USES_io "network;mesh")
set(SOFTIK_LAYER_USES_qp "")
set(SOFTIK_LAYER_USES_contact "io;mesh")
set(SOFTIK_LAYER_USES_solvers "exec;linear;loads;network;assembly;mesh")
set(SOFTIK_LAYER_USES_inverse "contact;exec;loads;assembly;solvers;linear;qp;mesh")
set(SOFTIK_LAYER_USES_dynamics "inverse;contact;exec;loads;network;assembly;solvers;linear;qp;io;mesh")
set(SOFTIK_LAYER_USES_scene "dynamics;contact;io;inverse;exec;solvers;linear;qp;loads;network;assembly;mesh")
set(SOFTIK_LAYER_USES_batch "scene;dynamics;contact;io;inverse;exec;solvers;linear;qp;loads;network;assembly;mesh")
# The program (host/cli/) and the CUDA backend (cuda/, which implements the core's interfaces of
# these folders) sit above the core.
set(SOFTIK_LAYER_USES_cli "batch;scene;dynamics;contact;io;inverse;exec;solvers;linear;qp;loads;network;assembly;mesh")
set(SOFTIK_LAYER_USES_cuda "exec;loads;network;linear;assembly;mesh")

set(SOFTIK_LAYER_PUBLIC_common "config;error;material;progress;backend;fem/*;exec/*")
set(SOFTIK_LAYER_PUBLIC_exec "")
set(SOFTIK_LAYER_PUBLIC_mesh
    "mesh;mesh_generator;mesh_transform;actuator_generator;shell_generator;mesh_selection;point_location;surface")
set(SOFTIK_LAYER_PUBLIC_assembly "assembly")
set(SOFTIK_LAYER_PUBLIC_linear "linear_solver")
set(SOFTIK_LAYER_PUBLIC_loads "loads;cavity")
set(SOFTIK_LAYER_PUBLIC_network "node_network;network_statics")
set(SOFTIK_LAYER_PUBLIC_io "mesh_io;network_io")
set(SOFTIK_LAYER_PUBLIC_qp "qp")
set(SOFTIK_LAYER_PUBLIC_contact "contact")
set(SOFTIK_LAYER_PUBLIC_solvers "static_solver;continuation;modes")
set(SOFTIK_LAYER_PUBLIC_inverse "constraints;inverse")
set(SOFTIK_LAYER_PUBLIC_dynamics "dynamics;explicit_dynamics")
set(SOFTIK_LAYER_PUBLIC_scene "scene;scene_description;scene_run;material_library")
set(SOFTIK_LAYER_PUBLIC_batch "batch")
