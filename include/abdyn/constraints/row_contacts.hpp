#pragma once
/// @file
/// Contacts between the model's collision geometry and a horizontal ground plane z = height.
/// Each shape offers fixed candidate points (sphere: its lowest point; capsule: the lowest points of its two
/// end spheres; box: its 8 corners; cylinder: per end cap the lowest rim point and three more at 90 degree
/// steps; mesh: the vertices of its convex hull within 1 cm of its lowest, reduced to four, those within
/// 0.5 mm of the lowest first, spanning the largest area); a point within `margin` of the plane
/// (gap C = z - height < margin; a point apart by more than speculative_gap only while it closes fast enough, see
/// GroundContactSettings::speculative_steps) becomes three rows at the point:
///   normal    J v = n . v(p), n = +z, impulse in [0, inf), target unilateralTarget(C) capped at
///             max_push_velocity, raised to
///             -restitution (n . v(p)) when the point approaches faster than restitution_threshold;
///   friction  J v = t . v(p) for t1, t2 perpendicular to n, target 0, |impulse| <= mu * normal impulse.
/// Shapes of the kinds isCollidable refuses (ellipsoids, planes, meshes not loaded) are skipped.
///
/// Contacts between bodies test candidate points of one shape against the signed distance d and outward
/// normal n of the other (sphere, box, cylinder): a sphere by its centre (gap d - radius, contact point
/// on its surface), boxes and cylinders by their candidate points in both directions. Rows as above with
/// n . (v_A(p) - v_B(p)) for the point's body A and the surface's body B. Pairs on one body, on a parent
/// and its child (whose shapes overlap at the joint; GroundContactSettings::exclude_parent_child), excluded
/// pairs (GroundContactSettings::excluded_pairs) and pairs whose filter bits do not match (Geometry::contype)
/// are skipped, and so are pairs whose world boxes lie apart (broad_phase.hpp). Box-box edge-edge contacts are missed.
/// A pair with a mesh or a capsule goes through GJK/EPA instead (convex_distance.hpp: the signed distance and
/// normal of the two convex shapes, meshes by their hulls): the deepest point, or for two polytopes (hulls and
/// boxes) whose nearest faces lie within 2.6 degrees of the contact plane, the overlap of those faces clipped
/// in that plane, at most four points, each with its own gap between the two faces.
///
/// With GroundContactSettings::world_shapes, the world's collision shapes pair with the moving bodies' shapes as
/// a body's would (a floating base, whose parent is the world, collides with them too). Under
/// ContactGeometry::StaticMeshes a world mesh collides by its triangles, found near the other shape by its
/// bounding-volume hierarchy (mesh_distance.hpp): each triangle within the margin is a convex shape for GJK/EPA;
/// a face lying on it is clipped against it, another contact gives its deepest point; an edge or corner that is no
/// crease of the surface (between coplanar or hollow neighbours) takes the triangle's normal, so that shapes slide
/// across the edges of a flat surface; points that coincide on shared edges count once; the pair keeps at most
/// four points, each with its own normal.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "abdyn/constraints/rows.hpp"

namespace abdyn {

class BroadPhase;

/// Which shapes the contacts collide.
enum class ContactGeometry {
  Primitives,    ///< spheres, boxes, cylinders and capsules; meshes are skipped
  ConvexHulls,   ///< also meshes, by the convex hulls loaded with them (Geometry::mesh)
  StaticMeshes,  ///< moving bodies' meshes by their hulls, the world's meshes exactly, by their triangles (MeshShape::bvh)
};

/// Contact parameters of the ground plane and of body-body contacts.
struct GroundContactSettings {
  double height = 0.0;                 ///< the plane z = height, world coordinates
  double mu = 0.8;                     ///< Coulomb friction coefficient (box approximation of the cone)
  double margin = 0.01;                ///< speculative margin, m
  double erp = 0.2;                    ///< penetration recovery per step (ground and body contacts)
  double max_push_velocity = 1.0;      ///< cap on the ERP push-out speed (m/s), so deep penetration cannot launch bodies
  /// Points apart by more than speculative_gap (m, at most margin) get rows only while they approach fast enough
  /// to close their gap within speculative_steps steps: a row for a point that is not closing binds only if the
  /// step's other impulses throw it at the surface, and a body resting on a few points would otherwise carry rows
  /// for every candidate within the margin (a round mesh foot: four contact points where one holds it).
  double speculative_gap = 1e-3;
  /// See speculative_gap; infinity gives every point within margin its rows.
  double speculative_steps = 20.0;
  double restitution = 0.0;            ///< coefficient e
  double restitution_threshold = 0.5;  ///< approach speed (m/s) below which impacts are inelastic
  ContactGeometry geometry = ContactGeometry::StaticMeshes;  ///< which shapes collide, and how meshes do
  /// Body contacts also pair the moving bodies' shapes with the world's collision shapes (those on body 0: links
  /// fixed to the world, MJCF worldbody geoms, shapes a user adds there): spheres, boxes, cylinders, capsules,
  /// and meshes (by their triangles under ContactGeometry::StaticMeshes, by their hulls under ConvexHulls).
  bool world_shapes = false;
  /// Pairs of bodies whose shapes never collide with each other, by name: a body's name or the name of any
  /// frame on it (a URDF link merged into its body by a fixed joint names that body). Besides these, shapes on
  /// one body and shapes of a parent and its child never collide. An unknown name is an abdyn::Error at the
  /// first step (the Simulator checks at construction). SRDF's `disable_collisions` list
  /// (io/srdf.hpp) and MJCF's `contact/exclude` fill it.
  std::vector<std::pair<std::string, std::string>> excluded_pairs;
  /// Pairs of bodies whose shapes never collide with each other, by body index (abdyn::InvalidArgument for
  /// an index outside 0 .. nbodies - 1).
  std::vector<std::pair<int, int>> excluded_body_pairs;
  /// Pairs of shapes that never collide with each other, by index into Model::geometries() (MJCF's
  /// `contact/exclude` of a body whose static children are fused into another abdyn body names only its own
  /// geoms). abdyn::InvalidArgument at the first step for an index out of range.
  std::vector<std::pair<int, int>> excluded_geometry_pairs;
  /// Whether the shapes of a body and of its parent never collide (they overlap at the joint). MuJoCo's
  /// `<flag filterparent="disable"/>` turns it off (MjcfModel::filter_parent).
  bool exclude_parent_child = true;
};

/// Whether ground and body contacts collide shapes of g's kind: spheres, boxes, cylinders, capsules, and meshes
/// whose convex hull is loaded (Geometry::mesh), whatever g's role and body (the contacts use collision shapes
/// of moving bodies only; ContactGeometry::Primitives leaves meshes out). Ellipsoids and planes are not collided.
bool isCollidable(const Geometry& g);

/// Whether body contacts with these settings collide g: a collision shape of a kind isCollidable takes, not a mesh
/// under ContactGeometry::Primitives, on a moving body or (with settings.world_shapes) on the world. Ground
/// contacts take the ones on moving bodies.
bool isContactShape(const Geometry& g, const GroundContactSettings& settings);

/// Whether body contacts with these settings collide g by its triangles: a world collision mesh with its
/// triangles' hierarchy (MeshShape::bvh), with settings.world_shapes, under ContactGeometry::StaticMeshes.
bool isStaticMeshShape(const Geometry& g, const GroundContactSettings& settings);

/// The body pairs that settings.excluded_pairs and settings.excluded_body_pairs name, each as (smaller index,
/// larger index), sorted, without repeats (a pair of one body twice is dropped: its shapes never collide).
/// Throws abdyn::Error naming the model and the name for a name that is no frame of the model, and
/// abdyn::InvalidArgument for an index out of range.
std::vector<std::pair<int, int>> excludedBodyPairs(const Model& model, const GroundContactSettings& settings);

/// Candidate points per geometry (row keys are key_base + 3 (8 geometry + point) + {0, 1, 2}).
constexpr int kContactPointsPerGeometry = 8;

/// Appends the rows of every collision point near the plane; returns the number of contact points.
/// Needs data.X_body_world and data.S_world (forwardKinematics, then jointJacobians; abdyn::InvalidArgument on a
/// stale S_world, rows.hpp); v is the velocity restitution is judged by.
int addGroundContactRows(RowSet& rows, const Model& model, const Data& data, const Eigen::VectorXd& v,
                         const GroundContactSettings& settings, double h, std::int64_t key_base);

/// A ground contact's point and how it moves with its body (see groundContactPoint).
struct GroundContactPoint {
  int body = 0;                      ///< the body the point belongs to
  Vector3 p_world = Vector3::Zero();  ///< the contact point, world coordinates
  Matrix3 slide = Matrix3::Zero();  ///< world coordinates; zero for a point fixed on the body
};
/// Where the ground contact with key offset `key_offset` (its rows' key minus key_base, any of the three) touches,
/// and how that point moves with its body, for the derivative of the rows along q (docs/derivatives.md, section 8).
/// A box corner is a point of the body; a sphere's lowest point and a cylinder's rim points are not: turning the
/// body at angular velocity w (world) moves the point at v_body(p) + slide w, not v_body(p). Needs
/// data.X_body_world at the configuration the rows were built at; throws abdyn::InvalidArgument on an offset
/// that names no candidate point of a collision shape.
GroundContactPoint groundContactPoint(const Model& model, const Data& data, std::int64_t key_offset);

/// Appends the rows of every pair of collision shapes on different, non-adjacent, not excluded bodies that are
/// within `margin` (settings.height is unused); returns the number of contact points. Row keys start at key_base.
/// Needs data.X_body_world and data.S_world, like addGroundContactRows.
int addBodyContactRows(RowSet& rows, const Model& model, const Data& data, const Eigen::VectorXd& v,
                       const GroundContactSettings& settings, double h, std::int64_t key_base);
/// The same with the broad phase's workspace given (broad_phase.hpp): pairs whose world boxes are apart skip the
/// narrow phase, which works in the workspace's buffers (BroadPhase::narrowPhase); once the workspace is sized and
/// its buffers have met the largest faces and candidate sets, nothing is allocated. The rows are those of the call
/// above.
int addBodyContactRows(RowSet& rows, const Model& model, const Data& data, const Eigen::VectorXd& v,
                       const GroundContactSettings& settings, double h, std::int64_t key_base, BroadPhase& broad_phase);

/// The model's collision shapes on moving bodies that contacts with these settings do not collide
/// (isCollidable; meshes without a loaded hull; meshes under ContactGeometry::Primitives), in one sentence
/// for a warning: how many of which kind, and the bodies left with no collidable shape at all (named); ""
/// when every collision shape is collided. The Simulator logs it once when built with ground or body contacts.
std::string uncollidedShapes(const Model& model, const GroundContactSettings& settings = {});

}  // namespace abdyn
